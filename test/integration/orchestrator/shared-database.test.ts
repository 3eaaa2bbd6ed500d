// @database-dependent: several connections to one database race for the same rows (locks, claims, the daemon lease, answers), and the database decides who wins.
import { loadConfig } from '../../../src/config';
import { Database } from '../../../src/db/database';
import { EventLog } from '../../../src/orchestrator/events';
import { GitManager } from '../../../src/git/git-manager';
import { Orchestrator } from '../../../src/orchestrator/orchestrator';
import { TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { TaskControl } from '../../../src/orchestrator/task-control';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { claimLaunch } from '../../../src/orchestrator/task-moves';
import { createRuntime } from '../../../src/runtime';
import type { PermissionAsk } from '../../../src/agents/agent-requests';
import { putTask } from '../../support/task-fixtures';
import { makeHarness, untilAborted, waitFor, type Harness } from './harness';

const MAKE: PermissionAsk = {
  tool: 'Bash',
  input: { command: 'make build' },
  description: 'Build it',
  reason: 'This command requires approval',
  rule: 'Bash(make build *)',
};

/**
 * The orchestrator's moves where a second connection to the same database (another process, as
 * `aq` or a second daemon is) competes or answers. The rest of the orchestrator suites run on
 * SQLite only; these run on both databases, because who wins is the database's to decide.
 */
describe('the orchestrator with other connections to its database', () => {
  let h: Harness;
  afterEach(() => h?.cleanup());

  const pending = async (taskId: string) => waitFor(async () => (await h.rt.db.agentRequests.list({ taskId, status: 'pending' }))[0]);

  it('workspace locks are atomic: of two concurrent acquires (even from two processes) exactly one wins', async () => {
    h = await makeHarness({ agents: 2 });
    const a = await h.task('A');
    const b = await h.task('B');
    const other = await Database.open(h.rt.config.database);
    try {
      const results = await Promise.all([
        claimLaunch(h.rt.db, new TaskStateMachine(h.rt.db), { taskId: a, agentId: 'agent-0', workspaceId: 'ws0' }),
        claimLaunch(other, new TaskStateMachine(other), { taskId: b, agentId: 'agent-1', workspaceId: 'ws0' }),
      ]);
      expect(results.filter((r) => r === null)).toHaveLength(1);
      expect(results).toContain('workspace_busy');
      // The loser wrote nothing: its task is READY and its agent IDLE.
      const loser = results[0] === null ? b : a;
      const loserAgent = results[0] === null ? 'agent-1' : 'agent-0';
      expect(await h.status(loser)).toBe('READY');
      expect((await h.rt.db.agents.list()).filter((x) => x.state === 'BUSY')).toHaveLength(1);
      // Retrying the loser's claim (with its own, idle agent) while the lock is held still fails, writing nothing.
      expect(await claimLaunch(other, new TaskStateMachine(other), { taskId: loser, agentId: loserAgent, workspaceId: 'ws0' })).toBe(
        'workspace_busy',
      );
      expect(await h.status(loser)).toBe('READY');
    } finally {
      await other.close();
    }
  });

  it('aborts a run whose task was stopped by another process (aq), within a cycle', async () => {
    h = await makeHarness();
    h.adapter.fallback = async (req) => {
      await untilAborted(req);
      return { status: 'aborted' };
    };
    await h.start();
    const id = await h.task('Long job');
    await waitFor(async () => h.adapter.calls.length === 1);
    // What `aq exec stop_task` does in its own process: the DB-only TaskControl.
    const other = await Database.open(h.rt.config.database);
    try {
      await new TaskControl(other, new EventLog(other, () => undefined)).stopTask(id);
    } finally {
      await other.close();
    }
    await waitFor(async () => h.adapter.calls[0].signal.aborted, 5000, 'the run to be aborted');
    await h.rt.daemon()!.idle();
    expect(await h.status(id)).toBe('BLOCKED');
  });

  it('wakes on an answer given by another process on the same database', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askPermission(MAKE, req.signal);
      return {};
    };
    await h.start();
    const id = await h.task('Answered from afar');
    const request = await pending(id);
    const other = await createRuntime(loadConfig({ AQ_HOME: h.rt.home, DATABASE_URL: h.rt.config.databaseUrl }), { log: () => undefined });
    try {
      await other.handler.execute('answer_agent_request', { request_id: request.id, decision: 'allow' }, { source: 'cli' });
    } finally {
      await other.close();
    }
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toEqual({ decision: 'allow', by: 'cli' });
  });

  it('reconciles what a dead daemon left (IN_PROGRESS/ASSIGNED tasks, BUSY agents, locks) and runs each task once', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    const running = await h.task('Was running');
    const assigned = await h.task('Was assigned');
    const db = h.rt.db;
    await putTask(db, running, 'IN_PROGRESS', { assignedAgent: 'agent-0', workspaceId: 'ws0', retryCount: 1 });
    await putTask(db, assigned, 'ASSIGNED', { assignedAgent: 'agent-1', workspaceId: 'ws1' });
    const conn = db.em().getConnection();
    await conn.execute("update agents set state = 'BUSY', current_task = ? where id = 'agent-0'", [running]);
    await conn.execute("update agents set state = 'BUSY', current_task = ? where id = 'agent-1'", [assigned]);
    await conn.execute("update workspaces set locked_by_task_id = ?, locked_by_agent_id = 'agent-0', locked_at = 1 where id = 'ws0'", [
      running,
    ]);
    await conn.execute("update workspaces set locked_by_task_id = ?, locked_by_agent_id = 'agent-1', locked_at = 1 where id = 'ws1'", [
      assigned,
    ]);

    await h.start();
    expect(h.rt.daemon()!.lastRecovery).toMatchObject({ agents: 2, locks: 2 });
    expect(
      h.rt
        .daemon()!
        .lastRecovery!.tasks.map((t) => t.id)
        .sort(),
    ).toEqual([running, assigned].sort());
    const retrying = h.eventsOf('task_retrying', running)[0];
    expect(retrying.payload).toMatchObject({ reason: 'recovered after restart', retry_count: 1 });

    await h.waitStatus(running, 'COMPLETED');
    await h.waitStatus(assigned, 'COMPLETED');
    expect(h.adapter.attempts.get(running)).toBe(1);
    expect(h.adapter.attempts.get(assigned)).toBe(1);
    expect((await db.tasks.get(running))?.retryCount).toBe(1);
  });

  it('a second daemon on the same database stands by and does not schedule or recover', async () => {
    h = await makeHarness();
    await h.start();
    const otherDb = await Database.open(h.rt.config.database);
    const otherCalls: string[] = [];
    const second = new Orchestrator(otherDb, new EventLog(otherDb, () => undefined), h.rt.config, {
      adapters: {
        claude: {
          type: 'claude',
          run: async (r) => {
            otherCalls.push(r.taskId);
            throw new Error('must not run');
          },
        },
      },
      git: new GitManagerTaskGit(new GitManager()),
      intervalMs: 50,
      log: () => undefined,
    });
    try {
      await second.start();
      expect(second.isLeader).toBe(false);
      expect(h.rt.daemon()!.isLeader).toBe(true);
      const id = await h.task('Only the leader runs this');
      await h.waitStatus(id, 'COMPLETED');
      expect(otherCalls).toEqual([]);
      expect((await h.rt.db.scheduling.lease())?.owner).toBe(h.rt.daemon()!.owner);
    } finally {
      await second.stop();
      await otherDb.close();
    }
  });
});
