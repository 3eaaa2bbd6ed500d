import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { TaskStatus } from '../../../src/db/value-sets';
import { GitManager } from '../../../src/git/git-manager';
import { statusesAccepting, TaskStateMachine, transitions, type TaskEvent } from '../../../src/orchestrator/state-machine';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { runTask } from '../../../src/orchestrator/task-runner';
import { putTask } from '../../support/task-fixtures';
import { installFakeForges } from '../../support/fake-forges';
import { PrFollower } from '../../../src/orchestrator/pr-follower';
import { ManualClock } from '../../../src/util/clock';
import { makeHarness, untilAborted, waitFor, writeIn, type Harness } from './harness';

/**
 * Every row of the state machine's table, driven through the command or orchestrator path that
 * makes that move. The rows come from the table itself: a row added without a scenario here
 * fails, and so does a scenario for a row the table no longer has.
 *
 * SQLite only: every move goes through one compare-and-set (the tasks repository's transition),
 * which test/unit/orchestrator/state-machine.test.ts proves on both databases, racing moves
 * included; claims and leases are the fleet suites', also on both. What is proved here is that a
 * real path makes each move, which does not depend on the database.
 */

type Scenario = (h: Harness) => Promise<string>;

/**
 * Scenarios that never start the daemon: each works on tasks of its own through commands or one
 * piece of the orchestrator, so they share one harness (a runtime, an origin and a clone cost
 * more than most of these scenarios). Its daemon refuses to start, so a scenario wrongly put
 * here fails instead of racing the others.
 */
const withoutDaemon = new WeakSet<Scenario>();
function noDaemon(scenario: Scenario): Scenario {
  withoutDaemon.add(scenario);
  return scenario;
}

/** Each status change of every task, in order, kept by a trigger on the real database. */
async function recordMoves(h: Harness): Promise<void> {
  const conn = h.rt.db.em().getConnection();
  await conn.execute('create table status_trail (seq integer primary key autoincrement, task_id text, old text, new text)');
  await conn.execute(`create trigger status_trail_on_update after update of status on tasks
    begin insert into status_trail (task_id, old, new) values (new.id, old.status, new.status); end`);
}

async function movesOf(h: Harness, taskId: string): Promise<string[]> {
  const rows = await h.rt.db
    .em()
    .getConnection()
    .execute<Array<{ old: string; new: string }>>('select old, new from status_trail where task_id = ? order by seq', [taskId]);
  return rows.map((r) => `${r.old} → ${r.new}`);
}

/** A READY task run by the daemon to the end: merged, COMPLETED. */
const runToCompletion: Scenario = async (h) => {
  h.adapter.fallback = async (req) => {
    await writeIn(req, `${req.taskId}.txt`, 'done\n');
    return { summary: 'done' };
  };
  await h.start();
  const id = await h.task('Runs to the end');
  await h.waitStatus(id, 'COMPLETED');
  const completed = await waitFor(async () => h.eventsOf('task_completed', id)[0]);
  expect(completed.payload.merged).toBe(true);
  expect(h.eventsOf('task_started', id)).toHaveLength(1);
  return id;
};

/** A run that fails once with one retry left, then succeeds. */
const failThenRetry: Scenario = async (h) => {
  h.adapter.fallback = async (_req, attempt) =>
    attempt === 1 ? { status: 'failed', errorMessage: 'Error: connection reset', summary: '' } : {};
  await h.start();
  const id = await h.task('Flaky', { maxRetries: 2 });
  await h.waitStatus(id, 'COMPLETED');
  expect(h.eventsOf('task_failed', id)[0].payload).toMatchObject({ retry_count: 1, will_retry: true });
  expect(h.eventsOf('task_retrying', id)).toHaveLength(1);
  return id;
};

/** A run that fails with no retry left: FAILED, then BLOCKED. */
const failForGood: Scenario = async (h) => {
  h.adapter.fallback = async () => ({ status: 'failed', errorMessage: 'Error: permission denied', summary: '' });
  await h.start();
  const id = await h.task('Doomed', { maxRetries: 1 });
  await h.waitStatus(id, 'BLOCKED');
  await waitFor(async () => h.eventsOf('task_blocked', id)[0]);
  expect(h.eventsOf('task_failed', id)[0].payload).toMatchObject({ retry_count: 1, will_retry: false });
  return id;
};

/** A task put in `status`, then restart_task. */
function restartFrom(status: TaskStatus): Scenario {
  return noDaemon(async (h) => {
    const id = await h.task(`Restart from ${status}`);
    await putTask(h.rt.db, id, status, { retryCount: 2, assignedAgent: 'agent-0' });
    expect(await h.rt.exec('restart_task', { task_id: id })).toEqual({
      restarted: id,
      title: `Restart from ${status}`,
      previous_status: status,
    });
    expect(await h.rt.db.tasks.get(id)).toMatchObject({ status: 'READY', retryCount: 0, assignedAgent: null });
    expect(h.eventsOf('task_restarted', id)[0].payload).toMatchObject({ previous_status: status });
    return id;
  });
}

/** A finished task gets a message (a reply in its thread): it goes back to the queue for a follow-up run. */
function followUpFrom(status: TaskStatus): Scenario {
  return noDaemon(async (h) => {
    const id = await h.task(`Follow up from ${status}`);
    await putTask(h.rt.db, id, status, { retryCount: 2, assignedAgent: 'agent-0' });
    expect(await h.rt.exec('message_task', { task_id: id, text: 'One more thing' })).toMatchObject({
      task_id: id,
      delivery: 'follow_up',
      status: 'READY',
      previous_status: status,
    });
    expect(await h.rt.db.tasks.get(id)).toMatchObject({ status: 'READY', retryCount: 0, assignedAgent: null });
    expect(h.eventsOf('task_follow_up_queued', id)[0].payload).toMatchObject({ previous_status: status, text: 'One more thing' });
    expect(await h.rt.db.taskMessages.pending(id, 'follow_up')).toEqual([expect.objectContaining({ text: 'One more thing' })]);
    return id;
  });
}

/** A BLOCKED or FAILED task, with a dependant waiting only on it, skipped. */
function skipFrom(status: TaskStatus): Scenario {
  return noDaemon(async (h) => {
    const id = await h.task('Stuck');
    await putTask(h.rt.db, id, status);
    const waiting = await h.task('Waits', {}, [id]);
    expect(await h.rt.exec('skip_task', { task_id: id })).toEqual({
      skipped: id,
      unblocked_count: 1,
      unblocked: [{ id: waiting, title: 'Waits' }],
    });
    expect(await h.rt.db.tasks.get(id)).toMatchObject({ status: 'COMPLETED', skipped: true });
    return id;
  });
}

const scenarios: Record<string, Scenario> = {
  'DEFINED DEPS_MET': noDaemon(async (h) => {
    const upstream = await h.task('Upstream');
    await putTask(h.rt.db, upstream, 'BLOCKED');
    const id = await h.task('Downstream', {}, [upstream]);
    await h.rt.exec('skip_task', { task_id: upstream });
    expect(await h.status(id)).toBe('READY');
    expect(h.eventsOf('task_unblocked', id)[0].payload).toEqual({ title: 'Downstream', by: upstream });
    return id;
  }),
  'READY ASSIGN': runToCompletion,
  'READY DEPS_ADDED': noDaemon(async (h) => {
    const upstream = await h.task('Unfinished');
    const id = await h.task('Now waits');
    expect(await h.rt.exec('add_dependency', { task_id: id, depends_on: upstream })).toEqual({
      task_id: id,
      depends_on: upstream,
      status: 'DEFINED',
    });
    return id;
  }),
  'ASSIGNED AGENT_STARTED': runToCompletion,
  'ASSIGNED LAUNCH_FAILED': noDaemon(async (h) => {
    // Its agent vanished between the claim and the launch.
    const id = await h.task('Orphaned launch');
    await putTask(h.rt.db, id, 'ASSIGNED', { assignedAgent: 'gone', workspaceId: 'ws0' });
    const deps = {
      db: h.rt.db,
      events: h.rt.events,
      config: h.rt.config,
      machine: new TaskStateMachine(h.rt.db, () => undefined),
      git: new GitManagerTaskGit(new GitManager()),
      adapters: { claude: h.adapter },
      progressIntervalMs: 20,
      rateLimitBackoffMs: 1000,
      log: () => undefined,
    };
    const handle = {
      taskId: id,
      agentId: 'gone',
      workspaceId: 'ws0',
      controller: new AbortController(),
      phase: 'starting' as const,
      done: Promise.resolve(),
    };
    await runTask(deps, handle);
    expect(await h.rt.db.tasks.get(id)).toMatchObject({ status: 'READY', assignedAgent: null });
    expect(h.adapter.calls).toHaveLength(0);
    return id;
  }),
  'ASSIGNED RECOVERY': async (h) => {
    const id = await h.task('Claimed by a dead daemon');
    await putTask(h.rt.db, id, 'ASSIGNED', { assignedAgent: 'agent-0', workspaceId: 'ws0' });
    await h.start();
    const retrying = await waitFor(async () => h.eventsOf('task_retrying', id)[0]);
    expect(retrying.payload).toMatchObject({ reason: 'recovered after restart', previous_status: 'ASSIGNED' });
    return id;
  },
  'IN_PROGRESS AGENT_COMPLETED': async (h) => {
    // A repository's tasks land through the merge train (PR_CREATED, then landed); a workspace
    // that is no git repository has nothing to land, so its run completes at once.
    await Promise.all(Array.from({ length: 10 }, (_, i) => rm(path.join(h.rt.home, `ws${i}`, '.git'), { recursive: true, force: true })));
    h.adapter.fallback = async () => ({ summary: 'done' });
    await h.start();
    const id = await h.task('Outside git');
    await h.waitStatus(id, 'COMPLETED');
    const completed = await waitFor(async () => h.eventsOf('task_completed', id)[0]);
    expect(completed.payload.merged).toBe(false);
    return id;
  },
  'IN_PROGRESS PR_CREATED': async (h) => {
    await h.start({ git: new GitManagerTaskGit(new GitManager({ ghPath: path.join(h.rt.home, 'no-such-gh') })) });
    const id = await h.task('Needs review', { requiresApproval: true });
    await h.waitStatus(id, 'AWAITING_APPROVAL');
    await waitFor(async () => h.eventsOf('task_awaiting_approval', id)[0]);
    // The agent finished its work: its run says so, whatever the task waits for now.
    const runs = await waitFor(async () => {
      const all = await h.rt.db.runRecords.forTask(id);
      return all.length > 0 && all.every((r) => r.endedAt !== null) && all;
    });
    expect(runs.map((r) => r.outcome)).toEqual(['COMPLETED']);
    return id;
  },
  'IN_PROGRESS AGENT_FAILED': failForGood,
  'IN_PROGRESS RATE_LIMITED': async (h) => {
    const resetsAt = new Date(Date.now() + 3600_000);
    h.adapter.fallback = async () => ({ status: 'rate_limited', errorMessage: 'API Error: 429 rate_limit_error', resetsAt, summary: '' });
    await h.start();
    const id = await h.task('Throttled');
    await h.waitStatus(id, 'PAUSED');
    const paused = await waitFor(async () => h.eventsOf('task_paused', id)[0]);
    expect(paused.payload.resume_after).toBe(resetsAt.toISOString());
    return id;
  },
  'IN_PROGRESS ADMIN_STOP': async (h) => {
    h.adapter.fallback = async (req) => {
      await untilAborted(req);
      return { status: 'aborted', summary: '' };
    };
    await h.start();
    const id = await h.task('Long job');
    await waitFor(async () => h.adapter.calls.length === 1);
    expect(await h.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    expect(await h.rt.db.tasks.get(id)).toMatchObject({ status: 'BLOCKED', assignedAgent: null });
    expect(h.eventsOf('task_stopped', id)).toHaveLength(1);
    return id;
  },
  'IN_PROGRESS RECOVERY': async (h) => {
    // The daemon shuts down during the run: the task goes back to the queue.
    h.adapter.fallback = async (req) => {
      await untilAborted(req);
      return { status: 'aborted', summary: '' };
    };
    await h.start();
    const id = await h.task('Interrupted');
    await waitFor(async () => h.adapter.calls.length === 1);
    await h.rt.stopDaemon();
    expect(await h.status(id)).toBe('READY');
    expect(h.eventsOf('task_retrying', id)[0].payload).toMatchObject({ reason: 'the daemon stopped during the run' });
    return id;
  },
  'PAUSED RESUME_TIMER': async (h) => {
    const id = await h.task('Waited out its pause');
    await putTask(h.rt.db, id, 'PAUSED', { resumeAfter: new Date(Date.now() - 1000), pauseReason: 'Rate or usage limit' });
    await h.start();
    await waitFor(async () => h.eventsOf('task_resumed', id)[0]);
    return id;
  },
  'AWAITING_APPROVAL ADMIN_APPROVE': noDaemon(async (h) => {
    const id = await h.task('Reviewed');
    await putTask(h.rt.db, id, 'AWAITING_APPROVAL');
    expect(await h.rt.exec('approve_task', { task_id: id })).toEqual({ approved: id, title: 'Reviewed' });
    expect(h.eventsOf('task_completed', id)[0].payload).toMatchObject({ approved: true });
    return id;
  }),
  'AWAITING_APPROVAL PR_MERGED': followPr('MERGED'),
  'AWAITING_APPROVAL PR_CLOSED': followPr('CLOSED'),
  'FAILED RETRY': failThenRetry,
  'FAILED MAX_RETRIES': failForGood,
  'FAILED ADMIN_SKIP': skipFrom('FAILED'),
  'BLOCKED ADMIN_SKIP': skipFrom('BLOCKED'),
};
Object.assign(scenarios, {
  'IN_PROGRESS INPUT_NEEDED': answeredQuestion,
  'WAITING_INPUT INPUT_RECEIVED': answeredQuestion,
  'WAITING_INPUT ADMIN_STOP': async (h: Harness) => {
    const id = await waitingTask(h, 'Stopped while asking');
    expect(await h.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    expect(await h.status(id)).toBe('BLOCKED');
    return id;
  },
  'WAITING_INPUT RECOVERY': async (h: Harness) => {
    // The daemon shuts down while the agent waits: the task goes back to the queue.
    const id = await waitingTask(h, 'Asked, then shut down');
    await h.rt.stopDaemon();
    expect(await h.status(id)).toBe('READY');
    return id;
  },
  'WAITING_INPUT INPUT_TIMEOUT': async (h: Harness) => {
    const clock = new ManualClock();
    const id = await waitingTask(h, 'Nobody answers', clock);
    clock.advance(3_600_000);
    await h.waitStatus(id, 'BLOCKED');
    return id;
  },
} satisfies Record<string, Scenario>);

/** Extra settings a scenario needs (a timeout that blocks). */
const ENV: Record<string, Record<string, string>> = {
  'WAITING_INPUT INPUT_TIMEOUT': { AQ_ASK_TIMEOUT_ACTION: 'block' },
};

/** A running task whose agent asks a question and waits (until answered, or its run ends). */
async function waitingTask(h: Harness, title: string, clock?: ManualClock): Promise<string> {
  h.adapter.fallback = async (req) => {
    const answer = await req.agentRequests!.askQuestions(
      [{ question: 'Which one?', options: [{ label: 'A' }, { label: 'B' }] }],
      req.signal,
    );
    if (!answer.answered && answer.stop) {
      await untilAborted(req);
      return { status: 'aborted', summary: '' };
    }
    return { summary: answer.answered ? `chose ${answer.answers['Which one?']}` : 'went on' };
  };
  await h.start(clock ? { clock } : {});
  const id = await h.task(title);
  await h.waitStatus(id, 'WAITING_INPUT');
  return id;
}

/** A question answered: the task waits, then runs on and completes. */
async function answeredQuestion(h: Harness): Promise<string> {
  const id = await waitingTask(h, 'Asks first');
  const [request] = await h.rt.db.agentRequests.list({ taskId: id, status: 'pending' });
  await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', question_index: 0, option_index: 0 });
  await h.waitStatus(id, 'COMPLETED');
  expect((await h.rt.db.taskResults.latest(id))?.summary).toBe('chose A');
  return id;
}

for (const status of statusesAccepting('ADMIN_RESTART')) scenarios[`${status} ADMIN_RESTART`] = restartFrom(status);
for (const status of statusesAccepting('FOLLOW_UP')) scenarios[`${status} FOLLOW_UP`] = followUpFrom(status);

/** A task whose PR the daemon's follower finds merged or closed on GitHub (a fake gh). */
function followPr(state: 'MERGED' | 'CLOSED'): Scenario {
  return noDaemon(async (h) => {
    const id = await h.task('Reviewed on GitHub');
    await putTask(h.rt.db, id, 'AWAITING_APPROVAL', { prUrl: 'https://github.com/acme/widget/pull/9' });
    const fake = await installFakeForges(h.rt.home);
    await fake.setState('gh', { view: { state } });
    await new PrFollower({
      db: h.rt.db,
      events: h.rt.events,
      git: new GitManager({ ghPath: path.join(fake.bin, 'gh') }),
      log: () => undefined,
    }).tick();
    expect(h.eventsOf(state === 'MERGED' ? 'task_completed' : 'task_blocked', id)).toHaveLength(1);
    return id;
  });
}

const key = (row: { from: TaskStatus; event: TaskEvent }) => `${row.from} ${row.event}`;

describe('state machine: every transition through a real path', () => {
  let h: Harness | undefined;
  let shared: Promise<Harness> | undefined;
  /** A scenario's moves, by scenario: rows made by one scenario (a run to the end) share its run. */
  const runs = new Map<Scenario, Promise<string[]>>();
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });
  afterAll(async () => (await shared)?.cleanup());

  function sharedHarness(): Promise<Harness> {
    shared ??= (async () => {
      const quiet = await makeHarness();
      quiet.start = async () => {
        throw new Error('A scenario marked noDaemon started the daemon: give it a harness of its own.');
      };
      await recordMoves(quiet);
      return quiet;
    })();
    return shared;
  }

  async function movesFor(row: { from: TaskStatus; event: TaskEvent }): Promise<string[]> {
    const scenario = scenarios[key(row)];
    if (!scenario) throw new Error(`No scenario drives ${key(row)}; add one.`);
    const env = ENV[key(row)];
    if (withoutDaemon.has(scenario) && !env) {
      const quiet = await sharedHarness();
      return movesOf(quiet, await scenario(quiet));
    }
    const known = env ? undefined : runs.get(scenario);
    if (known) return known;
    const moves = (async () => {
      h = await makeHarness({ env: env ?? {} });
      await recordMoves(h);
      const id = await scenario(h);
      return movesOf(h, id);
    })();
    if (!env) runs.set(scenario, moves);
    return moves;
  }

  it('has a scenario for each row of the table and none for a row it lacks', () => {
    expect(Object.keys(scenarios).sort()).toEqual(transitions().map(key).sort());
  });

  for (const row of transitions()) {
    it(`${row.from} --${row.event}--> ${row.to}`, async () => {
      expect(await movesFor(row)).toContain(`${row.from} → ${row.to}`);
    });
  }
});
