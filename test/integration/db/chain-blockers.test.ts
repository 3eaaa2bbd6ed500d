import { onPostgres } from '../../support/postgres-databases';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** The BLOCKED tasks holding something up, worked out from the tasks and their dependencies. */
async function expectBlockersExact(rt: TestRuntime, projects: string[]): Promise<void> {
  const conn = rt.db.em().getConnection();
  for (const project of projects) {
    const direct = await conn.execute<Array<{ id: string }>>(
      `select b.id from tasks b where b.project_id = ? and b.status = 'BLOCKED'
          and exists (select 1 from task_dependencies d join tasks t on t.id = d.task_id where d.depends_on_id = b.id and t.status <> 'COMPLETED')
        order by b.priority, b.created_at, b.id`,
      [project],
    );
    const kept = await rt.db.tasks.blockedHoldingUp(project, { limit: 100, offset: 0 });
    expect({ project, ids: kept.tasks.map((t) => t.id), total: kept.total }).toEqual({
      project,
      ids: direct.map((r) => r.id),
      total: direct.length,
    });
  }
}

describe('chain_blockers', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'a' });
    await rt.exec('create_project', { name: 'b' });
  });
  afterEach(() => rt.cleanup());

  const task = async (project: string, title: string, extra: Record<string, unknown> = {}) =>
    (await rt.exec('create_task', { project_id: project, title, description: 'd', ...extra })).created as string;
  const force = (id: string, status: string) => rt.exec('set_task_status', { task_id: id, status });

  it('stays exact through blocking, dependents finishing, dependency edits, reordering and deletes', async () => {
    const root = await task('a', 'root');
    const other = await task('a', 'other', { priority: 5 });
    const next = await task('a', 'next', { depends_on: [root] });
    const last = await task('a', 'last', { depends_on: [next, other] });
    const lone = await task('b', 'lone');
    await expectBlockersExact(rt, ['a', 'b']);

    await force(root, 'BLOCKED');
    await force(other, 'BLOCKED');
    await force(lone, 'BLOCKED'); // nothing waits on it: it holds nothing up
    await expectBlockersExact(rt, ['a', 'b']);
    expect((await rt.db.tasks.blockedHoldingUp('a', { limit: 10, offset: 0 })).tasks.map((t) => t.id)).toEqual([other, root]);

    // The only task waiting on `other` finishes, then comes back; `root` goes down the queue.
    await force(last, 'COMPLETED');
    await expectBlockersExact(rt, ['a']);
    await force(last, 'READY');
    await rt.exec('edit_task', { task_id: root, priority: 1 });
    await expectBlockersExact(rt, ['a']);

    await rt.exec('remove_dependency', { task_id: next, depends_on: root });
    await expectBlockersExact(rt, ['a']);
    await rt.exec('add_dependency', { task_id: next, depends_on: root });
    await rt.exec('add_dependency', { task_id: next, depends_on: lone });
    await expectBlockersExact(rt, ['a', 'b']);

    // Deleting a dependent (its dependencies cascade) and deleting a blocker.
    await rt.exec('delete_task', { task_id: last });
    await expectBlockersExact(rt, ['a', 'b']);
    await force(root, 'READY');
    await force(root, 'BLOCKED');
    await rt.exec('delete_task', { task_id: next });
    await expectBlockersExact(rt, ['a', 'b']);
    expect((await rt.db.tasks.blockedHoldingUp('a', { limit: 10, offset: 0 })).total).toBe(0);
    await rt.exec('delete_project', { project_id: 'a' });
    const left = await rt.db
      .em()
      .getConnection()
      .execute<Array<{ n: number }>>("select count(*) as n from chain_blockers where project_id = 'a'");
    expect(Number(left[0].n)).toBe(0);
  });

  it('is worked out again only on the moves that can change it, and stays exact through a run', async () => {
    const blocker = await task('a', 'blocker');
    const waiting = await task('a', 'waiting', { depends_on: [blocker] });
    // The blocker was BLOCKED once: it keeps a row, no longer holding anything up.
    await force(blocker, 'BLOCKED');
    await force(blocker, 'READY');
    /** Moves the task as a run does and says how many refreshes PostgreSQL's triggers made (null on SQLite). */
    const move = (id: string, status: string) =>
      rt.db.transaction(async (tx) => {
        if (onPostgres()) await tx.execute("set local track_functions = 'pl'");
        await tx.execute('update tasks set status = ? where id = ?', [status, id]);
        if (!onPostgres()) return null;
        const rows = await tx.execute<Array<{ n: number }>>(
          "select coalesce(sum(calls), 0) as n from pg_stat_xact_user_functions where funcname = 'chain_blockers_refresh'",
        );
        // The connection's counts are reported at commit, so the next transaction counts from zero.
        await tx.execute('select pg_stat_force_next_flush()');
        return Number(rows[0].n);
      });
    const refreshes: Array<number | null> = [];
    for (const [id, status] of [
      [blocker, 'ASSIGNED'],
      [blocker, 'IN_PROGRESS'],
      [blocker, 'BLOCKED'],
      [blocker, 'IN_PROGRESS'],
      [blocker, 'COMPLETED'],
      [waiting, 'ASSIGNED'],
      [waiting, 'IN_PROGRESS'],
      [waiting, 'COMPLETED'],
    ]) {
      refreshes.push(await move(id, status));
      await expectBlockersExact(rt, ['a']);
    }
    // Into and out of BLOCKED, and into COMPLETED: the others change no row.
    if (onPostgres()) expect(refreshes).toEqual([0, 0, 1, 1, 1, 0, 0, 1]);
  });
});
