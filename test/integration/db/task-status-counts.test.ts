import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** The counts table must always equal a direct count, whatever writes happen. */
async function expectCountsExact(rt: TestRuntime): Promise<void> {
  const conn = rt.db.em().getConnection();
  const direct = await conn.execute<Array<{ project_id: string; status: string; n: number }>>(
    'select project_id, status, count(*) as n from tasks group by project_id, status order by project_id, status',
  );
  const kept = await conn.execute<Array<{ project_id: string; status: string; n: number }>>(
    'select project_id, status, sum(n) as n from task_status_counts group by project_id, status having sum(n) <> 0 order by project_id, status',
  );
  expect(kept).toEqual(direct);
}

describe('task_status_counts', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'a' });
    await rt.exec('create_project', { name: 'b' });
  });
  afterEach(() => rt.cleanup());

  it('stays exact through inserts, status changes, deletes and project cascades', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await rt.exec('create_task', { project_id: i % 2 ? 'a' : 'b', title: `t${i}`, description: 'd' })).created as string);
    }
    await expectCountsExact(rt);
    await rt.exec('set_task_status', { task_id: ids[0], status: 'FAILED' });
    await rt.exec('set_task_status', { task_id: ids[0], status: 'FAILED' });
    await rt.exec('skip_task', { task_id: ids[0] });
    await rt.db.tasks.transition(ids[1], ['READY'], 'IN_PROGRESS');
    await expectCountsExact(rt);
    await rt.exec('delete_task', { task_id: ids[2] });
    await expectCountsExact(rt);
    await rt.exec('stop_task', { task_id: ids[1] });
    await rt.exec('delete_project', { project_id: 'a' });
    await expectCountsExact(rt);
    expect(await rt.db.tasks.countByStatus()).toEqual({ COMPLETED: 1, READY: 1 });
    expect(await rt.db.tasks.countByStatus('b')).toEqual({ COMPLETED: 1, READY: 1 });
    expect(await rt.db.tasks.countByStatus('a')).toEqual({});
  });

  it("counts one status's tasks, of a project or all, and delete_project is refused with that count", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await rt.exec('create_task', { project_id: i < 3 ? 'a' : 'b', title: `t${i}`, description: 'd' })).created as string);
    }
    const em = rt.db.em();
    await em.execute("update tasks set status = 'IN_PROGRESS' where id in (?, ?, ?)", [ids[0], ids[1], ids[3]]);
    await expectCountsExact(rt);
    expect(await rt.db.tasks.countInStatus('IN_PROGRESS')).toBe(3);
    expect(await rt.db.tasks.countInStatus('IN_PROGRESS', 'a')).toBe(2);
    expect(await rt.db.tasks.countInStatus('IN_PROGRESS', 'b')).toBe(1);
    expect(await rt.db.tasks.countInStatus('READY', 'a')).toBe(1);
    expect(await rt.db.tasks.countInStatus('FAILED')).toBe(0);
    expect(await rt.db.tasks.countInStatus('IN_PROGRESS', 'nope')).toBe(0);
    expect(await rt.exec('delete_project', { project_id: 'a' })).toEqual({
      error: "Project 'a' has 2 task(s) IN_PROGRESS. Stop them first (stop_task), then delete the project.",
    });
    await em.execute("update tasks set status = 'FAILED' where id in (?, ?)", [ids[0], ids[1]]);
    expect(await rt.db.tasks.countInStatus('IN_PROGRESS', 'a')).toBe(0);
    expect(await rt.exec('delete_project', { project_id: 'a' })).toMatchObject({ deleted: 'a' });
    expect(await rt.db.tasks.countInStatus('FAILED')).toBe(0);
    expect(await rt.db.tasks.countInStatus('IN_PROGRESS')).toBe(1);
  });
});
