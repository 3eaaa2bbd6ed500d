// @database-dependent: pages, their order and their totals come from SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { walkPages, type Page } from '../../support/pages';

/** Inserts `count` tasks in one statement (creating them one by one would dominate the test). */
async function insertTasks(rt: TestRuntime, project: string, count: number, status = 'READY'): Promise<void> {
  const now = Date.now();
  const rows = Array.from(
    { length: count },
    (_, i) => `('${project}-${i}', '${project}', 'Task ${i}', 'd', '${status}', ${i % 7}, ${now + i}, ${now + i})`,
  );
  await rt.db
    .em()
    .getConnection()
    .execute(`insert into tasks (id, project_id, title, description, status, priority, created_at, updated_at) values ${rows.join(', ')}`);
}

describe('list_tasks pages reach every task', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('create_project', { name: 'beta' });
  });
  afterEach(() => rt.cleanup());

  it('list_tasks pages past 200 with offset: every task once, in queue order, total and next_offset', async () => {
    await insertTasks(rt, 'alpha', 450);
    await insertTasks(rt, 'beta', 30, 'FAILED');

    const first = (await rt.exec('list_tasks')) as Page<'tasks'>;
    expect(first.tasks).toHaveLength(200);
    expect(first).toMatchObject({ total: 480, next_offset: 200 });
    expect(Object.keys(first).sort()).toEqual(['next_cursor', 'next_offset', 'tasks', 'total']);

    const pages = await walkPages(rt, 'list_tasks', 'tasks', {});
    expect(pages.map((p) => [p.tasks.length, p.total, p.next_offset])).toEqual([
      [200, 480, 200],
      [200, 480, 400],
      [80, 480, null],
    ]);
    const all = pages.flatMap((p) => p.tasks);
    expect(new Set(all.map((t) => t.id)).size).toBe(480);
    const order = all.map((t) => t.priority as number);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    const alpha = await walkPages(rt, 'list_tasks', 'tasks', { project_id: 'alpha', limit: 100 });
    expect(alpha.map((p) => p.tasks.length)).toEqual([100, 100, 100, 100, 50]);
    expect(new Set(alpha.flatMap((p) => p.tasks.map((t) => t.id))).size).toBe(450);
    expect(alpha.flatMap((p) => p.tasks).every((t) => t.project_id === 'alpha')).toBe(true);

    expect(await rt.exec('list_tasks', { status: 'FAILED', limit: 20, offset: 20 })).toMatchObject({ total: 30, next_offset: null });
    expect(((await rt.exec('list_tasks', { status: 'FAILED', limit: 20, offset: 20 })) as Page<'tasks'>).tasks).toHaveLength(10);
    expect(await rt.exec('list_tasks', { project_id: 'beta', status: 'READY' })).toEqual({
      tasks: [],
      total: 0,
      next_offset: null,
      next_cursor: null,
    });
    expect(await rt.exec('list_tasks', { offset: 10_000 })).toEqual({ tasks: [], total: 480, next_offset: null, next_cursor: null });
    expect(await rt.exec('list_tasks', { limit: 201 })).toEqual({ error: expect.stringContaining('limit') });
    expect(await rt.exec('list_tasks', { offset: -1 })).toEqual({ error: expect.stringContaining('offset') });

    // The total follows deletions (it is read from the kept counts, not recounted).
    await rt.exec('delete_task', { task_id: 'alpha-0' });
    await rt.exec('delete_project', { project_id: 'beta' });
    expect(await rt.exec('list_tasks', { offset: 400 })).toMatchObject({ total: 449, next_offset: null });
  });

  it('list_tasks pages by cursor in the same unique order as by offset, through ties, to the last page', async () => {
    // Every task of a project shares one priority and one created_at: only the tiebreaker orders them.
    const now = Date.now();
    const tied = Array.from({ length: 130 }, (_, i) => `('tie-${i}', 'alpha', 'Tie ${i}', 'd', 'READY', 5, ${now}, ${now})`);
    const conn = rt.db.em().getConnection();
    await conn.execute(
      `insert into tasks (id, project_id, title, description, status, priority, created_at, updated_at) values ${tied.join(', ')}`,
    );
    await insertTasks(rt, 'beta', 70);

    const byOffset = (await walkPages(rt, 'list_tasks', 'tasks', { limit: 50 })).flatMap((p) => p.tasks.map((t) => t.id));
    const pages: Array<Page<'tasks'> & { next_cursor: string | null }> = [];
    let cursor: string | undefined;
    do {
      const page = (await rt.exec('list_tasks', { limit: 50, ...(cursor && { cursor }) })) as Page<'tasks'> & {
        next_cursor: string | null;
      };
      expect(page.error).toBeUndefined();
      pages.push(page);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && pages.length < 20);
    expect(pages.map((p) => [p.tasks.length, p.total, p.next_offset])).toEqual([
      [50, 200, 50],
      [50, 200, null],
      [50, 200, null],
      [50, 200, null],
    ]);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    const byCursor = pages.flatMap((p) => p.tasks.map((t) => t.id));
    expect(byCursor).toEqual(byOffset);
    expect(new Set(byCursor).size).toBe(200);

    // Filtered, and an exact last page: the cursor of the 60th beta task leaves 10.
    const beta = (await rt.exec('list_tasks', { project_id: 'beta', limit: 60 })) as Page<'tasks'> & { next_cursor: string };
    const rest = (await rt.exec('list_tasks', { project_id: 'beta', limit: 60, cursor: beta.next_cursor })) as Page<'tasks'> & {
      next_cursor: string | null;
    };
    expect(rest.tasks.map((t) => t.id)).toEqual(byOffset.filter((id) => String(id).startsWith('beta-')).slice(60));
    expect(rest).toMatchObject({ total: 70, next_offset: null, next_cursor: null });
    expect(((await rt.exec('list_tasks', { project_id: 'beta', limit: 70 })) as { next_cursor: null }).next_cursor).toBeNull();

    // A page starts after its cursor's task even when that task has gone since.
    const second = pages[1].tasks.map((t) => t.id);
    await rt.exec('delete_task', { task_id: pages[0].tasks[49].id as string });
    const after = (await rt.exec('list_tasks', { limit: 50, cursor: pages[0].next_cursor! })) as Page<'tasks'>;
    expect(after.tasks.map((t) => t.id)).toEqual(second);

    expect(await rt.exec('list_tasks', { cursor: 'not-a-cursor' })).toEqual({ error: expect.stringContaining('not one list_tasks gave') });
    expect(await rt.exec('list_tasks', { cursor: pages[0].next_cursor!, offset: 50 })).toEqual({
      error: 'Give either offset or cursor, not both.',
    });
  });

  it("get_chain_health pages the chains of a project, and bounds each chain and a task's downstream", async () => {
    // 60 BLOCKED tasks each held up by one waiting task, one BLOCKED task nothing waits on, and a
    // long chain of 30 behind the most urgent BLOCKED task.
    await rt.exec('create_project', { name: 'waiting' });
    await insertTasks(rt, 'alpha', 61, 'BLOCKED');
    await insertTasks(rt, 'waiting', 90, 'DEFINED');
    const conn = rt.db.em().getConnection();
    const edges = Array.from({ length: 60 }, (_, i) => `('waiting-${i}', 'alpha-${i}')`);
    for (let i = 60; i < 90; i++) edges.push(`('waiting-${i}', 'waiting-${i - 1}')`);
    await conn.execute(`insert into task_dependencies (task_id, depends_on_id) values ${edges.join(', ')}`);

    const first = (await rt.exec('get_chain_health', { project_id: 'alpha' })) as Page<'stuck_chains'> & { total_stuck_chains: number };
    expect(first.stuck_chains).toHaveLength(50);
    expect(first).toMatchObject({ project_id: 'alpha', total_stuck_chains: 60, next_offset: 50 });
    const pages = await walkPages(rt, 'get_chain_health', 'stuck_chains', { project_id: 'alpha', limit: 25 });
    expect(pages.map((p) => p.stuck_chains.length)).toEqual([25, 25, 10]);
    const roots = pages.flatMap((p) => p.stuck_chains.map((c) => (c.blocked_task as { id: string }).id));
    expect(new Set(roots)).toEqual(new Set(Array.from({ length: 60 }, (_, i) => `alpha-${i}`)));

    // alpha-0 holds up waiting-0 and, through it, nothing; waiting-59 leads the chain of 30.
    const long = pages.flatMap((p) => p.stuck_chains).find((c) => (c.blocked_task as { id: string }).id === 'alpha-59')!;
    expect(long.stuck_count).toBe(31);
    expect(long.stuck_downstream).toHaveLength(20);
    expect((long.stuck_downstream as Array<{ id: string }>).map((s) => s.id).slice(0, 3)).toEqual([
      'waiting-59',
      'waiting-60',
      'waiting-61',
    ]);

    const downstream = (await walkPages(rt, 'get_chain_health', 'stuck_downstream', { task_id: 'alpha-59', limit: 12 })) as Array<
      Page<'stuck_downstream'> & { stuck_count: number }
    >;
    expect(downstream.map((p) => [p.stuck_downstream.length, p.stuck_count, p.next_offset])).toEqual([
      [12, 31, 12],
      [12, 31, 24],
      [7, 31, null],
    ]);
    expect(new Set(downstream.flatMap((p) => p.stuck_downstream.map((s) => s.id))).size).toBe(31);
    expect(await rt.exec('get_chain_health', { task_id: 'alpha-59', offset: 100 })).toMatchObject({
      stuck_downstream: [],
      stuck_count: 31,
      next_offset: null,
    });
    expect(await rt.exec('get_chain_health', { project_id: 'alpha', limit: 201 })).toEqual({ error: expect.stringContaining('limit') });
  });
});
