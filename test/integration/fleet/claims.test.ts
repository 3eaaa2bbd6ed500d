import path from 'node:path';
import { Database } from '../../../src/db/database';
import { reapLapsedClaims } from '../../../src/orchestrator/recovery';
import { TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { claimLaunch } from '../../../src/orchestrator/task-moves';
import { onPostgres } from '../../support/postgres-databases';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { countStatements } from '../../support/statement-counter';

/**
 * Claims as separate processes make them: each claimer on its own connection to the same SQLite
 * file, all at once. The claim re-checks the scheduler's rules inside its transaction. Three at
 * once here: SQLite's busy wait holds one of libuv's four threads per waiting connection, so
 * more connections in one process would starve the one holding the lock (separate processes, as
 * in `npm run bench` with eight claimers, do not share threads). PostgreSQL's client waits
 * without a thread: eight there.
 */
const CLAIMERS = onPostgres() ? 8 : 3;
describe('claiming launches across the fleet', () => {
  let rt: TestRuntime;
  let others: Database[] = [];
  afterEach(async () => {
    for (const db of others) await db.close();
    others = [];
    await rt.cleanup();
  });

  async function setup(cap: number, claimers: number): Promise<Database[]> {
    rt = await makeTestRuntime({ AQ_AGENTS: '0' });
    await rt.exec('create_project', { name: 'web', max_concurrent_agents: cap });
    for (let i = 0; i < claimers; i++) {
      await rt.db.agents.create({ id: `w${i}-agent`, name: `w${i} agent`, type: 'claude', workerId: `w${i}` });
      await rt.db.workspaces.create({
        id: `w${i}-ws`,
        projectId: 'web',
        name: `w${i}-ws`,
        path: path.join(rt.home, `w${i}`),
        sourceType: 'clone',
        repoId: null,
        workerId: `w${i}`,
      });
      others.push(await Database.open(rt.config.database));
    }
    return others;
  }

  const task = async (title: string) => (await rt.exec('create_task', { project_id: 'web', title, description: title })).created as string;
  const claim = (db: Database, taskId: string, i: number, runId = `run-${i}-${taskId}`) =>
    claimLaunch(db, new TaskStateMachine(db, () => undefined), {
      taskId,
      agentId: `w${i}-agent`,
      workspaceId: `w${i}-ws`,
      runId,
      workerId: `w${i}`,
      leaseMs: 60_000,
    });

  it(`${CLAIMERS} claimers of one task: exactly one wins, the rest write nothing`, async () => {
    const dbs = await setup(8, CLAIMERS);
    const id = await task('Only once');
    const results = await Promise.all(dbs.map((db, i) => claim(db, id, i)));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(new Set(results.filter((r) => r !== null))).toEqual(new Set(['task_not_ready']));
    const winner = results.indexOf(null);
    expect(await rt.db.runRecords.forTask(id)).toEqual([expect.objectContaining({ workerId: `w${winner}`, endedAt: null })]);
    expect((await rt.db.agents.list()).filter((a) => a.state === 'BUSY').map((a) => a.id)).toEqual([`w${winner}-agent`]);
    expect((await rt.db.workspaces.list('web')).filter((w) => w.lockedByTaskId).map((w) => w.id)).toEqual([`w${winner}-ws`]);
  });

  it(`${CLAIMERS} claimers of as many tasks in a project capped at 2: two win, the rest are told it is full`, async () => {
    const dbs = await setup(2, CLAIMERS);
    const ids: string[] = [];
    for (let i = 0; i < CLAIMERS; i++) ids.push(await task(`T${i}`));
    const results = await Promise.all(dbs.map((db, i) => claim(db, ids[i], i)));
    expect(results.filter((r) => r === null)).toHaveLength(2);
    expect(results.filter((r) => r !== null)).toEqual(Array(CLAIMERS - 2).fill('project_full'));
    expect((await rt.db.tasks.list({ projectId: 'web', status: 'ASSIGNED' }, 10)).total).toBe(2);
    expect((await rt.db.tasks.list({ projectId: 'web', status: 'READY' }, 20)).total).toBe(CLAIMERS - 2);
  });

  it('refuses while the project or the orchestrator is paused, and while a dependency is open', async () => {
    const [db] = await setup(4, 1);
    const id = await task('Paused');
    await rt.exec('pause_project', { project_id: 'web' });
    expect(await claim(db, id, 0)).toBe('project_paused');
    await rt.exec('resume_project', { project_id: 'web' });
    await rt.exec('orchestrator_control', { action: 'pause' });
    expect(await claim(db, id, 0)).toBe('orchestrator_paused');
    await rt.exec('orchestrator_control', { action: 'resume' });
    const first = await task('First');
    // A READY task whose dependency is still open (forced there) is not launched.
    await rt.db.em().getConnection().execute('insert into task_dependencies (task_id, depends_on_id) values (?, ?)', [id, first]);
    expect(await claim(db, id, 0)).toBe('dependencies_open');
    expect(await rt.db.runRecords.forTask(id)).toEqual([]);
  });

  it('a lapsed claim is reaped once; the old run can no longer move the task, the new one can', async () => {
    const [a, b] = await setup(4, 2);
    const id = await task('Handed over');
    expect(await claim(a, id, 0, 'old-run')).toBeNull();
    const oldRun = new TaskStateMachine({ tasks: a.runRecords.fencedTasks(id, 'old-run') }, () => undefined);
    expect((await oldRun.fire(id, 'AGENT_STARTED', { startedAt: new Date() })).ok).toBe(true);
    // Nothing lapses before the lease ends.
    expect(await reapLapsedClaims(rt.db, rt.events, new TaskStateMachine(rt.db, () => undefined), new Date())).toEqual([]);
    const later = new Date(Date.now() + 120_000);
    const [first, second] = await Promise.all([
      reapLapsedClaims(rt.db, rt.events, new TaskStateMachine(rt.db, () => undefined), later),
      reapLapsedClaims(b, rt.events, new TaskStateMachine(b, () => undefined), later),
    ]);
    expect([...first, ...second]).toEqual([{ id, worker: 'w0' }]);
    expect((await rt.db.tasks.get(id))?.status).toBe('READY');
    expect(await claim(b, id, 1, 'new-run')).toBeNull();
    const newRun = new TaskStateMachine({ tasks: b.runRecords.fencedTasks(id, 'new-run') }, () => undefined);
    expect((await oldRun.fire(id, 'AGENT_STARTED', { startedAt: new Date() })).ok).toBe(false);
    expect((await newRun.fire(id, 'AGENT_STARTED', { startedAt: new Date() })).ok).toBe(true);
    expect((await oldRun.fire(id, 'AGENT_COMPLETED', { completedAt: new Date() })).ok).toBe(false);
    expect((await newRun.fire(id, 'AGENT_COMPLETED', { completedAt: new Date() })).ok).toBe(true);
    const runs = await rt.db.runRecords.forTask(id);
    expect(runs.map((r) => [r.id, r.workerId, r.outcome])).toEqual([
      ['old-run', 'w0', 'LEASE_EXPIRED'],
      ['new-run', 'w1', 'COMPLETED'],
    ]);
    // The old worker's workspace keeps its lock: it is that worker's to clean up.
    expect((await rt.db.workspaces.get('w0-ws'))?.lockedByTaskId).toBe(id);
  });

  it('a claim refused at its agent or its workspace leaves nothing taken', async () => {
    const [db] = await setup(4, 2);
    const id = await task('Refused late');
    const left = async () => ({
      status: (await rt.db.tasks.get(id))?.status,
      runs: (await rt.db.runRecords.forTask(id)).length,
      agent: (await rt.db.agents.get('w0-agent'))?.state,
      workspace: (await rt.db.workspaces.get('w0-ws'))?.lockedByTaskId ?? null,
      // PostgreSQL's project slots (SQLite counts running tasks instead).
      slots: onPostgres()
        ? Number((await rt.db.em().execute<Array<{ n: number }>>('select count(*) as n from project_slots where run_id is not null'))[0].n)
        : 0,
    });
    await rt.db.em().execute("update agents set state = 'BUSY', current_task = 'elsewhere' where id = 'w0-agent'");
    expect(await claim(db, id, 0)).toBe('agent_not_idle');
    expect(await left()).toEqual({ status: 'READY', runs: 0, agent: 'BUSY', workspace: null, slots: 0 });
    await rt.db.em().execute("update agents set state = 'IDLE', current_task = null where id = 'w0-agent'");
    const other = await task('Holds the workspace');
    expect(await rt.db.taskRuns.lockWorkspace('w0-ws', other, null)).toBe(true);
    expect(await claim(db, id, 0)).toBe('workspace_busy');
    expect(await left()).toEqual({ status: 'READY', runs: 0, agent: 'IDLE', workspace: other, slots: 0 });
    expect(await rt.db.workspaces.release('w0-ws', other)).toBe(true);
    expect(await claim(db, id, 0)).toBeNull();
    expect(await left()).toEqual({ status: 'ASSIGNED', runs: 1, agent: 'BUSY', workspace: id, slots: onPostgres() ? 1 : 0 });
  });

  it("a run's last move ends its record and lets go of its claim with it; its end frees agent and workspace (one statement each on PostgreSQL)", async () => {
    const [db] = await setup(4, 1);
    const id = await task('Ends');
    expect(await claim(db, id, 0, 'the-run')).toBeNull();
    const run = new TaskStateMachine({ tasks: db.runRecords.fencedTasks(id, 'the-run') }, () => undefined);
    const claimOf = async () =>
      (
        await rt.db
          .em()
          .execute<Array<{ claimed_by: string | null; lease_expires_at: number | null }>>(
            'select claimed_by, lease_expires_at from tasks where id = ?',
            [id],
          )
      )[0];
    const counter = countStatements(db);
    try {
      expect(await run.fire(id, 'AGENT_STARTED', { startedAt: new Date() })).toMatchObject({ ok: true, from: 'ASSIGNED' });
      // A move that keeps the run going keeps its claim and its record open.
      expect(await claimOf()).toMatchObject({ claimed_by: 'w0' });
      expect((await rt.db.runRecords.forTask(id))[0]).toMatchObject({ endedAt: null, outcome: null });
      const before = counter.count;
      expect(await run.fire(id, 'PR_CREATED', { prUrl: 'https://example.test/pr/1' })).toMatchObject({ ok: true, from: 'IN_PROGRESS' });
      const lastMove = counter.count - before;
      expect(await claimOf()).toEqual({ claimed_by: null, lease_expires_at: null });
      expect((await rt.db.runRecords.forTask(id))[0]).toMatchObject({ id: 'the-run', outcome: 'COMPLETED', endedAt: expect.any(Number) });
      const atFinish = counter.count;
      await db.taskRuns.finishRun(id, 'w0-agent', 'w0-ws');
      const finish = counter.count - atFinish;
      // PostgreSQL: one statement each. SQLite: the transaction's write lock, then the read, the move
      // and the run's two ends; the write lock and the two updates.
      expect([lastMove, finish]).toEqual(onPostgres() ? [1, 1] : [5, 3]);
    } finally {
      counter.stop();
    }
    expect(await rt.db.agents.get('w0-agent')).toMatchObject({ state: 'IDLE', currentTask: null });
    expect(await rt.db.workspaces.get('w0-ws')).toMatchObject({ lockedByTaskId: null });
  });

  it("frees a workspace only for the task that holds it, or all of a task's workspaces", async () => {
    await setup(8, 2);
    const [a, b] = [await task('A'), await task('B')];
    expect(await claim(rt.db, a, 0)).toBeNull();
    expect(await claim(rt.db, b, 1)).toBeNull();
    const holder = async (id: string) => (await rt.db.workspaces.get(id))?.lockedByTaskId ?? null;
    expect(await rt.db.workspaces.release('w0-ws', b)).toBe(false);
    expect(await holder('w0-ws')).toBe(a);
    expect(await rt.db.workspaces.release('w0-ws', a)).toBe(true);
    expect(await rt.db.workspaces.get('w0-ws')).toMatchObject({ lockedByTaskId: null, lockedByAgentId: null, lockedAt: null });
    expect(await rt.db.workspaces.releaseByTask(a)).toBe(0);
    expect(await rt.db.workspaces.releaseByTask(b)).toBe(1);
    expect(await holder('w1-ws')).toBeNull();
  });
});
