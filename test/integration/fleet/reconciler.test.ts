import { waitFor, writeIn } from '../orchestrator/harness';
import { makeFleet, type Fleet } from './fleet-harness';

jest.setTimeout(120_000);

/** A clock a lease ahead of the wall clock: whatever the test left behind is already past its grace. */
const ahead = (ms: number) => () => new Date(Date.now() + ms);

describe('the reconciler repairs tasks that nothing would move, through the state machine', () => {
  let fleet: Fleet;
  afterEach(async () => {
    await fleet?.cleanup();
  });

  async function createTask(title: string): Promise<string> {
    return (await fleet.rt.exec('create_task', { project_id: 'web', title, description: `Write ${title}.` })).created as string;
  }

  async function reconciled(taskId: string): Promise<Array<Record<string, unknown>>> {
    const events = await fleet.rt.db.events.recent(500);
    return events.filter((e) => e.type === 'task_reconciled' && e.taskId === taskId).map((e) => e.payload as Record<string, unknown>);
  }

  it('a FAILED task with retries left and no run is retried; a worker’s running task it no longer runs goes back to READY; a stray run record closes', async () => {
    fleet = await makeFleet();
    const failed = await createTask('failed');
    const stray = await createTask('stray');
    const done = await createTask('done');
    // States a lost write leaves: FAILED after a run whose RETRY never landed; IN_PROGRESS under
    // alpha's claim with no run of alpha's; a COMPLETED task whose run record never closed.
    await fleet.rt.exec('set_task_status', { task_id: failed, status: 'FAILED' });
    await fleet.rt.exec('set_task_status', { task_id: stray, status: 'IN_PROGRESS' });
    await fleet.rt.exec('set_task_status', { task_id: done, status: 'COMPLETED' });
    const conn = fleet.rt.db.em().getConnection();
    await conn.execute('update tasks set claimed_by = ?, lease_expires_at = ?, current_run_id = ? where id = ?', [
      'alpha',
      Date.now() + 3600_000,
      'lost-run',
      stray,
    ]);
    await conn.execute(
      "insert into task_runs (id, task_id, worker_id, agent_id, workspace_id, claimed_at) values ('open-run', ?, 'alpha', 'alpha-agent-1', 'none', ?)",
      [done, Date.now() - 60_000],
    );
    expect((await fleet.rt.exec('get_status')).repairs).toBe(0);

    const w = await fleet.addWorker('alpha', { now: ahead(5_000) });
    w.adapter.fallback = async (req) => {
      await writeIn(req, `${req.taskId}.txt`, `${req.taskId}\n`);
      return {};
    };
    // Its start-up recovery may take the stray first (same repair, said as a retry after restart);
    // either way both run again and complete.
    await waitFor(
      async () =>
        (await fleet.rt.db.tasks.statusesOf([failed, stray])).get(failed) === 'COMPLETED' &&
        (await fleet.rt.db.tasks.statusesOf([stray])).get(stray) === 'COMPLETED',
      60_000,
      'the repaired tasks to run and complete',
    );
    expect(await reconciled(failed)).toEqual([
      expect.objectContaining({ repair: 'retried', previous_status: 'FAILED', reason: expect.stringContaining('nothing retried it') }),
    ]);
    await waitFor(async () => (await reconciled(done)).length > 0, 30_000, 'the stray run record to close');
    expect(await reconciled(done)).toEqual([expect.objectContaining({ repair: 'run_closed', previous_status: 'COMPLETED' })]);
    expect((await fleet.rt.db.runRecords.forTask(done))[0]).toEqual(expect.objectContaining({ outcome: 'RECONCILED' }));
    for (const run of await fleet.rt.db.runRecords.all()) expect(run.endedAt).not.toBeNull();
    expect((await fleet.rt.exec('get_status')).repairs).toBeGreaterThanOrEqual(2);
  });

  it('a task its worker’s run left IN_PROGRESS (the run is gone, the worker alive) goes back to READY and runs again', async () => {
    fleet = await makeFleet();
    const w = await fleet.addWorker('alpha', { now: ahead(5_000) });
    w.adapter.fallback = async (req) => {
      await writeIn(req, `${req.taskId}.txt`, `${req.taskId}\n`);
      return {};
    };
    const id = await createTask('orphan');
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'COMPLETED', 60_000, 'the first run');
    // As if the run's last move had failed through every retry while alpha lives on.
    await fleet.rt.exec('set_task_status', { task_id: id, status: 'IN_PROGRESS' });
    await fleet.rt.db
      .em()
      .getConnection()
      .execute('update tasks set claimed_by = ?, lease_expires_at = ? where id = ?', ['alpha', Date.now() + 3600_000, id]);
    await waitFor(async () => (await reconciled(id)).length > 0, 30_000, 'the reconciler to requeue the task');
    expect(await reconciled(id)).toEqual([
      expect.objectContaining({
        repair: 'requeued',
        previous_status: 'IN_PROGRESS',
        reason: 'it was IN_PROGRESS but no run of worker alpha held it',
      }),
    ]);
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'COMPLETED', 60_000, 'the task to run again');
    expect((await fleet.rt.db.runRecords.forTask(id)).length).toBe(2);
  });

  it('the daemon retries a FAILED task nothing moved on, and blocks one whose retries are spent', async () => {
    fleet = await makeFleet();
    const retry = await createTask('retry me');
    const spent = await createTask('spent');
    await fleet.rt.exec('set_task_status', { task_id: retry, status: 'FAILED' });
    await fleet.rt.exec('set_task_status', { task_id: spent, status: 'FAILED' });
    await fleet.rt.db.em().getConnection().execute('update tasks set retry_count = max_retries where id = ?', [spent]);
    await fleet.rt.startDaemon({ reconcileGraceMs: 0, intervalMs: 100 });
    await waitFor(async () => (await fleet.rt.db.tasks.get(spent))?.status === 'BLOCKED', 30_000, 'the spent task to be blocked');
    await waitFor(async () => (await fleet.rt.db.tasks.get(retry))?.status === 'READY', 30_000, 'the other to be retried');
    expect(await reconciled(spent)).toEqual([expect.objectContaining({ repair: 'blocked' })]);
    expect(await reconciled(retry)).toEqual([expect.objectContaining({ repair: 'retried' })]);
    const events = await fleet.rt.db.events.recent(200);
    expect(events.some((e) => e.type === 'task_blocked' && e.taskId === spent)).toBe(true);
    expect((await fleet.rt.exec('get_status')).repairs).toBe(2);
  });
});
