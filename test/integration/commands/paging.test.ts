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
    expect(Object.keys(first).sort()).toEqual(['next_offset', 'tasks', 'total']);

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
    expect(await rt.exec('list_tasks', { project_id: 'beta', status: 'READY' })).toEqual({ tasks: [], total: 0, next_offset: null });
    expect(await rt.exec('list_tasks', { offset: 10_000 })).toEqual({ tasks: [], total: 480, next_offset: null });
    expect(await rt.exec('list_tasks', { limit: 201 })).toEqual({ error: expect.stringContaining('limit') });
    expect(await rt.exec('list_tasks', { offset: -1 })).toEqual({ error: expect.stringContaining('offset') });

    // The total follows deletions (it is read from the kept counts, not recounted).
    await rt.exec('delete_task', { task_id: 'alpha-0' });
    await rt.exec('delete_project', { project_id: 'beta' });
    expect(await rt.exec('list_tasks', { offset: 400 })).toMatchObject({ total: 449, next_offset: null });
  });

  it('blocked tasks of a project (chain health) come in slices that add up to the whole, with a kept count', async () => {
    await insertTasks(rt, 'alpha', 25, 'BLOCKED');
    await insertTasks(rt, 'beta', 3, 'BLOCKED');
    const whole = await rt.db.tasks.blockedInProject('alpha');
    expect(whole).toHaveLength(25);
    const slices = [];
    for (let offset = 0; offset < 25; offset += 10) slices.push(...(await rt.db.tasks.blockedInProject('alpha', { limit: 10, offset })));
    expect(slices).toEqual(whole);
    expect((await rt.db.tasks.countByStatus('alpha')).BLOCKED).toBe(25);
  });
});
