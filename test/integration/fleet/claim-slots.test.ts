import path from 'node:path';
import { Database } from '../../../src/db/database';
import { reapLapsedClaims, recoverStaleState } from '../../../src/orchestrator/recovery';
import { TaskStateMachine, type TaskEvent } from '../../../src/orchestrator/state-machine';
import { claimLaunch } from '../../../src/orchestrator/task-moves';
import { onPostgres } from '../../support/postgres-databases';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * A project's max_concurrent_agents under claims made at once on their own connections, as
 * workers make them: on PostgreSQL the cap is held by the project's slots (project_slots, taken
 * with SKIP LOCKED), on SQLite by the one write lock; the behaviour is the same. Fewer claimers on
 * SQLite, for the reason claims.test.ts gives.
 */
const CLAIMERS = onPostgres() ? 8 : 3;
const quiet = () => undefined;

describe('the project cap under concurrent claims', () => {
  let rt: TestRuntime;
  let dbs: Database[] = [];
  let tasks = 0;
  let unusedAgent = 0;
  afterEach(async () => {
    for (const db of dbs) await db.close();
    dbs = [];
    await rt.cleanup();
  });

  /** A project capped at `cap`, `agents` agents each with its own workspace, and CLAIMERS connections. */
  async function setup(cap: number, agents = CLAIMERS): Promise<void> {
    rt = await makeTestRuntime({ AQ_AGENTS: '0' });
    tasks = 0;
    unusedAgent = 0;
    await rt.exec('create_project', { name: 'web', max_concurrent_agents: cap });
    for (let i = 0; i < agents; i++) {
      await rt.db.agents.create({ id: `a${i}`, name: `agent ${i}`, type: 'claude', workerId: 'w' });
      await rt.db.workspaces.create({
        id: `ws${i}`,
        projectId: 'web',
        name: `ws${i}`,
        path: path.join(rt.home, `ws${i}`),
        sourceType: 'clone',
        repoId: null,
        workerId: 'w',
      });
    }
    for (let i = 0; i < CLAIMERS; i++) dbs.push(await Database.open(rt.config.database));
  }

  const newTask = async () =>
    (await rt.exec('create_task', { project_id: 'web', title: `T${++tasks}`, description: 'x' })).created as string;
  const claim = (db: Database, taskId: string, agent: number) =>
    claimLaunch(db, new TaskStateMachine(db, quiet), {
      taskId,
      agentId: `a${agent}`,
      workspaceId: `ws${agent}`,
      runId: `run-${taskId}`,
      workerId: 'w',
      leaseMs: 60_000,
    });
  /** The run's own moves, fenced on it, as the worker running it makes them. */
  const fire = (taskId: string, event: TaskEvent) =>
    new TaskStateMachine({ tasks: rt.db.runRecords.fencedTasks(taskId, `run-${taskId}`) }, quiet).fire(taskId, event, {});
  const running = async () =>
    Number(
      (
        await rt.db
          .em()
          .getConnection()
          .execute<Array<{ n: number }>>(
            "select count(*) as n from tasks where project_id = 'web' and status in ('ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT')",
          )
      )[0].n,
    );
  /** Every connection claims a READY task of its own at once, each with an agent not used before; returns the winners. */
  async function race(): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < CLAIMERS; i++) ids.push(await newTask());
    const results = await Promise.all(dbs.map((db, i) => claim(db, ids[i], unusedAgent++)));
    expect(results.filter((r) => r !== null && r !== 'project_full')).toEqual([]);
    return ids.filter((_, i) => results[i] === null);
  }

  it('claimers looping on the head of one queue never go over the cap, nor claim a task twice', async () => {
    await setup(3);
    for (let i = 0; i < 16; i++) await newTask();
    let most = 0;
    // Each connection claims a task among the first few READY ones with its own agent, looks at
    // how many run, and completes it at once, until nothing is READY.
    await Promise.all(
      dbs.map(async (db, agent) => {
        for (;;) {
          const head = (await db
            .em()
            .getConnection()
            .execute("select id from tasks where project_id = 'web' and status = 'READY' order by priority, created_at limit 4")) as Array<{
            id: string;
          }>;
          if (head.length === 0) return;
          const id = head[Math.floor(Math.random() * head.length)].id;
          if ((await claim(db, id, agent)) !== null) continue;
          most = Math.max(most, await running());
          const run = new TaskStateMachine({ tasks: db.runRecords.fencedTasks(id, `run-${id}`) }, quiet);
          expect((await run.fire(id, 'AGENT_STARTED', {})).ok).toBe(true);
          expect((await run.fire(id, 'AGENT_COMPLETED', {})).ok).toBe(true);
          await db.taskRuns.finishRun(id, `a${agent}`, `ws${agent}`);
        }
      }),
    );
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
    const runs = await rt.db.runRecords.all();
    expect(runs).toHaveLength(16);
    expect(new Set(runs.map((r) => r.taskId)).size).toBe(16);
    expect(runs.every((r) => r.outcome === 'COMPLETED')).toBe(true);
    // The counts the connections wrote side by side (on PostgreSQL, each on stripes of its own) add up.
    expect(await rt.db.tasks.countByStatus('web')).toEqual({ COMPLETED: 16 });
  });

  /** Its agent starts, then `then` ends the run. */
  const started =
    (then: (id: string) => Promise<unknown>) =>
    async (id: string): Promise<unknown> => {
      await fire(id, 'AGENT_STARTED');
      return then(id);
    };
  const stop = (id: string) => rt.exec('stop_task', { task_id: id });
  /** Each way a run ends, made as its caller makes it (the worker frees the agent and workspace after). */
  const endings: Array<[string, (id: string) => Promise<unknown>]> = [
    ['completion', started((id) => fire(id, 'AGENT_COMPLETED'))],
    ['failure', started((id) => fire(id, 'AGENT_FAILED'))],
    ['a pull request awaiting approval', started((id) => fire(id, 'PR_CREATED'))],
    ['a usage limit', started((id) => fire(id, 'RATE_LIMITED'))],
    ['a launch that failed', (id) => fire(id, 'LAUNCH_FAILED')],
    ['a stop', started(stop)],
    ['a stop while waiting for input', started(async (id) => (await fire(id, 'INPUT_NEEDED')) && stop(id))],
    ['a restart', (id) => rt.exec('restart_task', { task_id: id })],
    ['a skip after failing', started(async (id) => (await fire(id, 'AGENT_FAILED')) && rt.exec('skip_task', { task_id: id }))],
    ['recovery of its worker', () => recoverStaleState(rt.db, rt.events, new TaskStateMachine(rt.db, quiet), [], 'w')],
    ['a lapsed lease', () => reapLapsedClaims(rt.db, rt.events, new TaskStateMachine(rt.db, quiet), new Date(Date.now() + 120_000))],
  ];

  it('a slot comes back after each way a run ends', async () => {
    await setup(1, 2);
    for (const [way, end] of endings) {
      const [first, second] = [await newTask(), await newTask()];
      expect(await claim(dbs[0], first, 0)).toBeNull();
      expect(await claim(dbs[1], second, 1)).toBe('project_full');
      await end(first);
      expect(await running()).toBe(0);
      await rt.db.taskRuns.finishRun(first, 'a0');
      // The second task takes the slot the first run gave back, then gives it back in turn.
      expect([way, await claim(dbs[1], second, 1)]).toEqual([way, null]);
      await fire(second, 'AGENT_STARTED');
      await fire(second, 'AGENT_COMPLETED');
      await rt.db.taskRuns.finishRun(second, 'a1', 'ws1');
    }
  });

  it('a cap raised or lowered while runs are live: more claims at once, or none until the running ones are under it', async () => {
    await setup(4, CLAIMERS * 5);
    const finish = async (id: string) => {
      await fire(id, 'AGENT_STARTED');
      await fire(id, 'AGENT_COMPLETED');
    };
    const live: string[] = [];
    for (let i = 0; i < 4; i++) {
      live.push(await newTask());
      expect(await claim(dbs[0], live[i], unusedAgent++)).toBeNull();
    }
    // Lowered to 3 while four run: nobody gets in, and the running ones finish.
    expect(await rt.exec('edit_project', { project_id: 'web', max_concurrent_agents: 3 })).toMatchObject({ updated: 'web' });
    await finish(live[0]);
    expect(await running()).toBe(3);
    expect(await race()).toEqual([]);
    await finish(live[1]);
    // Two run under a cap of 3: exactly one of the claimers at once gets in.
    expect(await running()).toBe(2);
    expect(await race()).toHaveLength(1);
    expect(await running()).toBe(3);
    // Raised to 5: exactly two more at once.
    expect(await rt.exec('edit_project', { project_id: 'web', max_concurrent_agents: 5 })).toMatchObject({ updated: 'web' });
    expect(await race()).toHaveLength(2);
    expect(await running()).toBe(5);
  });
});
