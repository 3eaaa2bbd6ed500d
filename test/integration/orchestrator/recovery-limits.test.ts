// @database-dependent: recovery counts and ends runs with conditional writes.
import { Database } from '../../../src/db/database';
import { makeHarness, waitFor, type Harness } from './harness';
import { putTask } from '../../support/task-fixtures';

describe('crash recovery, rate limits and the daemon lease', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

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
    const { Orchestrator } = await import('../../../src/orchestrator/orchestrator');
    const { EventLog } = await import('../../../src/orchestrator/events');
    const { GitManagerTaskGit } = await import('../../../src/orchestrator/task-git');
    const { GitManager } = await import('../../../src/git/git-manager');
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

  it('a usage-limit message pauses the task until the named reset, then the cycle resumes it', async () => {
    h = await makeHarness();
    h.adapter.fallback = async (_req, attempt) =>
      attempt === 1 ? { status: 'rate_limited', errorMessage: "You've hit your limit · resets 3pm (UTC)", summary: '' } : { summary: 'ok' };
    await h.start();
    const id = await h.task('Limited');
    await h.waitStatus(id, 'PAUSED');
    const paused = await h.rt.db.tasks.get(id);
    const resume = paused!.resumeAfter!;
    expect(resume.getUTCHours()).toBe(15);
    expect(resume.getUTCMinutes()).toBe(0);
    expect(resume.getTime()).toBeGreaterThan(Date.now());
    expect(resume.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    const event = await waitFor(async () => h.eventsOf('task_paused', id)[0]);
    expect(event.payload).toMatchObject({ title: 'Limited', resume_after: resume.toISOString() });
    expect(String(event.payload.reason)).toContain('hit your limit');
    expect((await h.rt.db.taskResults.latest(id))?.result).toBe('PAUSED_RATE_LIMIT');
    expect(paused!.retryCount).toBe(0);

    // Time passes: the cycle resumes it and it runs again.
    await h.rt.db.tasks.update(id, { resumeAfter: new Date(Date.now() - 1000) });
    h.rt.daemon()!.kick();
    await h.waitStatus(id, 'COMPLETED');
    expect(h.eventsOf('task_resumed', id)).toHaveLength(1);
  });

  it('a 429 without a reset time pauses for the bounded backoff; a resetsAt from the stream wins', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    const resetsAt = new Date(Date.now() + 3_600_000);
    h.adapter.fallback = async (req) =>
      req.prompt.includes('With reset')
        ? { status: 'rate_limited', errorMessage: 'API Error: 429 rate_limit_error', resetsAt }
        : { status: 'rate_limited', errorMessage: 'API Error: 429 rate_limit_error' };
    await h.start({ rateLimitBackoffMs: 90_000 });
    const plain = await h.task('Plain 429');
    const withReset = await h.task('With reset');
    const before = Date.now();
    await h.waitStatus(plain, 'PAUSED');
    await h.waitStatus(withReset, 'PAUSED');
    const wait = (await h.rt.db.tasks.get(plain))!.resumeAfter!.getTime() - before;
    expect(wait).toBeGreaterThan(80_000);
    expect(wait).toBeLessThan(100_000);
    expect((await h.rt.db.tasks.get(withReset))!.resumeAfter!.getTime()).toBe(resetsAt.getTime());
  });
});
