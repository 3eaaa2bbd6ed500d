import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { makeClaudeEnv } from '../../support/claude-env';
import { FakeAnthropic, type RecordedRequest, type ScriptedAnswer } from '../../support/fake-anthropic';
import { createOriginRepo, gitOut } from '../../support/git-fixtures';
import { createTestDatabase, onPostgres } from '../../support/postgres-databases';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { waitFor } from '../../integration/orchestrator/harness';
import { overlappingRuns } from '../../integration/fleet/fleet-harness';

jest.setTimeout(300_000);

const AQ = path.join(__dirname, '..', '..', '..', 'bin', 'aq.js');
const TASKS = 12;

/** The text of a request's first user message (our prompt to the agent). */
function firstPrompt(request: RecordedRequest): string {
  const first = request.body.messages?.[0]?.content;
  if (typeof first === 'string') return first;
  return Array.isArray(first) ? first.map((b) => (b as { text?: string }).text ?? '').join('\n') : '';
}

function lastUserHasToolResult(request: RecordedRequest): boolean {
  const last = [...(request.body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return Array.isArray(last?.content) && (last.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result');
}

interface WorkerProcess {
  name: string;
  dir: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/**
 * The fleet as it runs for real: the Slack app (the real Bolt app against the fake Slack, its
 * daemon with no local agents) and three `aq worker` processes (bin/aq.js, built) sharing its
 * database (PostgreSQL: jest.config.js runs this suite there only), running the real Claude Code CLI against the loopback Messages API.
 * One worker is killed with SIGKILL in the middle of a run.
 */
describe('one app process and three aq worker processes (e2e)', () => {
  let app: TestApp;
  let fake: FakeAnthropic;
  let dropDatabase: (() => Promise<void>) | null = null;
  const workers: WorkerProcess[] = [];

  afterEach(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    for (const w of workers) {
      w.child.stdout?.destroy();
      w.child.stderr?.destroy();
    }
    await app?.stop();
    await fake?.close();
    await dropDatabase?.();
  });

  it('runs every task exactly once across the workers, and a killed worker’s tasks run again elsewhere', async () => {
    fake = await FakeAnthropic.start({ consumeOnlyWithTools: true, untooledText: 'Fleet task' });
    // On the `postgresql` Jest project the app and the workers share a PostgreSQL database.
    const database = onPostgres() ? await createTestDatabase() : null;
    dropDatabase = database?.drop ?? null;
    app = await startTestApp(
      { AQ_LOCAL_AGENTS: 'false', AQ_AGENTS: '0', ...(database && { DATABASE_URL: database.url }) },
      { daemon: true },
    );
    const rt = app.started.runtime;
    const exec = (name: string, args: Record<string, unknown> = {}) => rt.handler.executeAny(name, args, { source: 'system' });
    const origin = await createOriginRepo(app.home);
    await exec('create_project', { name: 'web', max_concurrent_agents: 6, auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'web', channel_id: 'CWEB' });
    await exec('add_repo', { project_id: 'web', source: 'clone', url: origin });

    // The victim's third run is held at its first model call; the test kills the victim there.
    const victim = 'w3';
    let victimHeld: (request: RecordedRequest) => void = () => undefined;
    const held = new Promise<RecordedRequest>((resolve) => {
      victimHeld = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    const agent = async (request: RecordedRequest): Promise<ScriptedAnswer> => {
      const prompt = firstPrompt(request);
      const workspace = /- Workspace directory: (.+)/.exec(prompt)?.[1]?.trim();
      const taskId = /- Task id: (\S+)/.exec(prompt)?.[1];
      if (!workspace || !taskId) return { text: 'Nothing to do.' };
      if (lastUserHasToolResult(request)) return { text: `Wrote ${taskId}.txt.` };
      if (!holding && workspace.includes(`${path.sep}${victim}${path.sep}`)) {
        const done = (await rt.db.runRecords.all()).filter((r) => r.workerId === victim && r.outcome === 'COMPLETED');
        if (done.length >= 2) {
          holding = true;
          victimHeld(request);
          await released;
        }
      }
      return { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, `${taskId}.txt`), content: `${taskId}\n` } }] };
    };
    fake.enqueue(...Array.from({ length: 400 }, () => agent));

    for (const name of ['w1', 'w2', victim]) {
      const dir = path.join(app.home, 'machines', name);
      const env = {
        ...makeClaudeEnv(fake.url, dir),
        AQ_HOME: dir,
        DATABASE_URL: rt.config.databaseUrl,
        AQ_NO_COMPILE_CACHE: '1',
        NODE_OPTIONS: '',
      };
      const child = spawn(process.execPath, [AQ, 'worker', '--name', name, '--capacity', '2', '--lease-seconds', '10'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output: string[] = [];
      child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
      child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      workers.push({ name, dir, child, output, exited });
    }
    await waitFor(async () => (await rt.db.workers.list()).length === 3, 60_000, 'the three workers to register');

    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      ids.push(
        (await exec('create_task', { project_id: 'web', title: `Fleet task ${i}`, description: `Write file ${i}.` })).created as string,
      );
    }

    /** What the fleet did, for a timeout's message. */
    const story = async (err: Error) => {
      const tasks = await rt.db.tasks.list({ projectId: 'web' }, 100);
      const trouble = (await rt.db.events.recent(200)).filter((e) => ['merge_failed', 'task_blocked', 'task_failed'].includes(e.type));
      return new Error(
        [
          err.message,
          JSON.stringify(tasks.tasks.map((t) => [t.id, t.status])),
          JSON.stringify((await rt.db.runRecords.all()).map((r) => [r.taskId, r.workerId, r.outcome])),
          JSON.stringify(trouble.map((e) => e.payload)),
          `requests ${fake.requests.length}`,
          ...workers.map((w) => w.output.join('')),
        ].join('\n'),
      );
    };
    const request = await Promise.race([
      held,
      waitFor<RecordedRequest>(async () => false, 120_000, 'the victim to start its third run').catch(async (err) => {
        throw await story(err);
      }),
    ]);
    const heldTask = /- Task id: (\S+)/.exec(firstPrompt(request))?.[1] as string;
    workers[2].child.kill('SIGKILL');
    await workers[2].exited;
    release();

    await waitFor(
      async () => (await rt.db.tasks.list({ projectId: 'web', status: 'COMPLETED' }, 100)).tasks.length === TASKS,
      240_000,
      'every task to complete',
    ).catch(async (err) => {
      throw await story(err);
    });

    // Every task COMPLETED exactly once: one run ended COMPLETED, and no two runs of a task overlapped.
    const runs = await rt.db.runRecords.all();
    const twice = ids.filter((id) => runs.filter((r) => r.taskId === id && r.outcome === 'COMPLETED').length !== 1);
    if (twice.length > 0) {
      // What happened to those tasks between their runs, for the failure's message.
      const events = (await rt.db.events.recent(1000)).filter((e) => e.taskId && twice.includes(e.taskId)).reverse();
      throw await story(
        new Error(
          [
            `Not exactly one COMPLETED run: ${twice.join(', ')}`,
            ...events.map((e) => `${e.createdAt.getTime()} ${e.origin} ${e.taskId} ${e.type} ${JSON.stringify(e.payload).slice(0, 600)}`),
          ].join('\n'),
        ),
      );
    }
    expect(overlappingRuns(runs)).toEqual([]);
    // The held task's run on the killed worker lapsed, and the task ran again on another worker.
    const heldRuns = runs.filter((r) => r.taskId === heldTask);
    expect(heldRuns.map((r) => [r.workerId, r.outcome])).toEqual([
      [victim, 'LEASE_EXPIRED'],
      [expect.not.stringMatching(victim), 'COMPLETED'],
    ]);
    // Every worker took several tasks.
    for (const name of ['w1', 'w2', victim]) {
      expect(runs.filter((r) => r.workerId === name && r.outcome === 'COMPLETED').length).toBeGreaterThanOrEqual(2);
    }
    // Each merge is on origin once.
    const log = await gitOut(origin, 'log', '--format=%B', 'main');
    for (const id of ids) {
      expect(log.split(`Task-Id: ${id}\n`).length - 1).toBe(1);
      expect(await gitOut(origin, 'show', `main:${id}.txt`)).toBe(id);
    }
    // The workers reported through the database; the app posted every completion to Slack. The app
    // relays the fleet's events in order, one at a time, so on a loaded machine it trails the
    // workers by many seconds: the deadline only bounds a failure.
    await waitFor(
      async () => ids.every((_, i) => app.slack.callsTo('chat.postMessage').some((c) => c.args.text === `✅ Completed: Fleet task ${i}`)),
      120_000,
      'the app to post every completion',
    ).catch(async (err) => {
      const posted = app.slack.callsTo('chat.postMessage').map((c) => String(c.args.text));
      const completions = (await rt.db.events.recent(500)).filter((e) => e.type === 'task_completed');
      throw await story(
        new Error(
          [
            err.message,
            `posted: ${JSON.stringify(posted.filter((t) => t.includes('Fleet task')))}`,
            `task_completed events: ${JSON.stringify(completions.map((e) => [e.id, e.taskId, e.origin]))}`,
          ].join('\n'),
        ),
      );
    });
    const status = await exec('get_status');
    expect(status.workers).toEqual([
      expect.objectContaining({ name: 'w1', alive: true, capacity: 2 }),
      expect.objectContaining({ name: 'w2', alive: true, capacity: 2 }),
      expect.objectContaining({ name: victim, alive: false, running_tasks: [] }),
    ]);
  });
});
