import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic, type RecordedRequest } from '../../support/fake-anthropic';
import { createOriginRepo, gitOut } from '../../support/git-fixtures';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback, slashCommand } from '../../support/slack-payloads';
import { AppLog } from '../../support/app-log';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { waitFor } from '../../integration/orchestrator/harness';

jest.setTimeout(180_000);

const conversation = (r: RecordedRequest): string => JSON.stringify(r.body.messages ?? []);

/**
 * A task's room (Slack code channel) with the real Claude Code CLI against the loopback Messages
 * API and the real Bolt app against the fake Slack: one room per task, its context bar and diff
 * kept current, a message in the room reaching the running session, a room slash command running
 * its catalog command, and the room archived with a summary in the task's thread; and, where the
 * workspace refuses rooms, the thread alone, with nothing failing.
 */
describe('task rooms with the real Claude Code CLI (e2e)', () => {
  let app: TestApp;
  let appLog: AppLog;
  let slack: FakeSlack;
  let fake: FakeAnthropic;
  let origin: string;
  let workspace: string;
  const events: Array<{ type: string; taskId: string | null }> = [];

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    appLog = new AppLog();
    app = await startTestApp({}, { daemon: false, log: appLog.log });
    slack = app.slack;
    const rt = app.started.runtime;
    events.length = 0;
    origin = await createOriginRepo(app.home);
    await rt.handler.execute('create_project', { name: 'web' }, { source: 'system' });
    await rt.handler.execute('add_repo', { project_id: 'web', source: 'clone', url: origin }, { source: 'system' });
    await rt.handler.execute('set_project_channel', { project_id: 'web', channel_id: 'CWEB' }, { source: 'system' });
    workspace = path.join(rt.config.workspaceDir, 'web', 'workspaces', 'ws-1');
    await mkdir(path.join(app.home, 'claude-home', 'config'), { recursive: true });
    await startDaemon();
  });
  afterEach(async () => {
    try {
      await app.stop();
      await fake.close();
    } finally {
      appLog.flush();
    }
  });

  /** The daemon of the app's current process, running the real CLI against the fake Messages API; its events recorded. */
  async function startDaemon(): Promise<void> {
    const rt = app.started.runtime;
    rt.events.subscribe((e) => {
      events.push({ type: e.type, taskId: e.taskId });
    });
    const home = path.join(app.home, 'claude-home');
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      messagePollMs: 50,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    await rt.startDaemon({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager()), intervalMs: 500, progressIntervalMs: 50 });
  }

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const seen = (type: string, taskId: string) => events.filter((e) => e.type === type && e.taskId === taskId).length;
  const status = async (id: string) => (await exec('get_task', { task_id: id })).status;

  it('opens one room (one only across a restart), keeps it current, takes a room message and a room command, and archives it', async () => {
    let taskId = '';
    let restarted: () => void = () => undefined;
    const write = (file: string, content: string) => ({
      toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, file), content } }],
    });
    fake.enqueue(
      async () => {
        // The first answer waits until the room's message has reached the run, so it lands mid-turn.
        await waitFor(async () => seen('task_message_delivered', taskId) > 0, 90_000, 'the room message to be delivered');
        return write('room.txt', 'made in a room\n');
      },
      // The second turn is never answered to this run: the app stops (and restarts) while it waits.
      async () => {
        await new Promise<void>((resolve) => {
          restarted = resolve;
        });
        return { text: 'Too late.' };
      },
      // The run again, in the restarted app.
      write('after.txt', 'after the restart\n'),
      { text: 'Wrote after.txt.' },
    );
    taskId = (
      await exec('create_task', {
        project_id: 'web',
        title: 'Room <work> & more',
        description: 'Write room.txt.',
        repo_id: 'origin',
        requires_approval: true,
      })
    ).created as string;
    const thread = await waitFor(() => rt().db.taskThreads.get(taskId), 90_000, 'the task thread');
    const room = await waitFor(async () => slack.rooms.bySession(taskId), 90_000, 'the room');
    await slack.waitForCall('agents.conversations.setCommands');
    expect(room.origin).toEqual({ channel_id: thread.channelId, message_ts: thread.threadTs });
    expect(room.commands.map((c) => c.name)).toEqual(['approve', 'request-changes', 'stop', 'restart', 'skip', 'budget', 'diff', 'plan']);

    // A person writes in the room: it reaches the running session like a thread reply.
    const said = slack.userSays({ channel: room.channel_id, user: 'U7', text: 'ROOM: keep it short' });
    await FakeSlack.postToApp(app.url, JSON.stringify(eventCallback(said)), { signingSecret: app.signingSecret, contentType: 'json' });

    // The app stops mid-run and a new one starts on the same database: the task runs again, in the same room.
    await waitFor(async () => fake.requests.length >= 2, 90_000, 'the run to ask for its second turn');
    expect(await status(taskId)).toBe('IN_PROGRESS');
    await app.restart();
    restarted();
    await startDaemon();
    await waitFor(async () => (await status(taskId)) === 'AWAITING_APPROVAL', 120_000, 'the task to await approval');
    await app.started.notifier.idle();
    const requests = fake.requests.filter((r) => Array.isArray(r.body.messages));
    expect(requests.some((r) => conversation(r).includes('ROOM: keep it short'))).toBe(true);

    // The restarted app keeps the room current: its context bar says where the work is and offers
    // Approve; the diff view is git's diff of the branch as the second run left it (the interrupted
    // run's leftovers went to a stash when the run began again).
    const task = await exec('get_task', { task_id: taskId });
    await waitFor(
      async () => slack.rooms.rooms.get(room.channel_id)?.context_bar.some((i) => i.key === 'aq_room_approve'),
      30_000,
      'Approve in the bar',
    );
    const bar = room.context_bar;
    expect(bar.length).toBeLessThanOrEqual(5);
    expect(bar[0]).toMatchObject({ key: 'branch', label: `origin · ${String(task.branch)}` });
    expect(bar.find((i) => i.key === 'state')?.label).toMatch(/^awaiting approval · [\d,]+ tokens · \$\d+\.\d\d$/);
    expect(await exec('get_task_diff', { task_id: taskId })).toMatchObject({ diff: expect.stringContaining('+after the restart') });
    const diffView = room.views.get('diff');
    const checkout = (await exec('list_workspaces', { project_id: 'web' })) as { workspaces: Array<{ path: string }> };
    const gitDiff = await gitOut(checkout.workspaces[0].path, 'diff', '--no-ext-diff', `main...${String(task.branch)}`, '--');
    expect(diffView?.content).toBe(`${gitDiff}\n`);
    expect(diffView?.content).toContain('+after the restart');
    expect(await exec('get_task', { task_id: taskId })).toMatchObject({ room_channel_id: room.channel_id, views: ['diff'] });
    // The bar is sent only when it changed.
    const bars = slack.callsTo('agents.conversations.setProperties').map((c) => JSON.stringify(c.args.code_channel));
    expect(new Set(bars).size).toBe(bars.length);

    // A room slash command runs its catalog command: /approve merges, as the button would.
    const ack = await FakeSlack.postToApp(
      app.url,
      slashCommand({ command: '/approve', text: '', userId: 'U7', channelId: room.channel_id, responseUrl: slack.responseUrl('room') }),
      { signingSecret: app.signingSecret },
    );
    expect(ack.status).toBe(200);
    await waitFor(async () => (await status(taskId)) === 'COMPLETED', 90_000, 'the approved task to complete');
    await slack.waitFor(() => slack.rooms.rooms.get(room.channel_id)?.archived === true, 'the room to be archived', 60_000);
    expect(await gitOut(origin, 'show', 'main:after.txt')).toBe('after the restart');

    // The summary, shared back to the task's thread; one room only, all along.
    const shared = slack.threadMessages(thread.channelId, thread.threadTs).find((m) => 'shared_from' in m);
    expect(String(shared?.text)).toMatch(
      /^🏁 Room &lt;work&gt; &amp; more: completed · 1 file changed \(\+1 −0\) · no PR · \$\d+\.\d\d · [\d,]+ tokens$/,
    );
    expect(slack.rooms.rooms.size).toBe(1);
    expect(slack.callsTo('agents.conversations.create').map((c) => c.args.session_id)).toEqual([taskId]);
    expect(slack.callsTo('agents.conversations.archive')).toHaveLength(1);
    expect(seen('room_opened', taskId)).toBe(1);
    await waitFor(async () => seen('room_archived', taskId) === 1, 30_000, 'room_archived');
    await app.started.notifier.idle();
    expect(seen('room_archived', taskId)).toBe(1);
  });

  it("posts the agent's plan as a plan block in the thread and the room, ticking as its steps run, and closes the room after", async () => {
    await exec('edit_project', { project_id: 'web', task_rooms: 'all' });
    type Card = { task_id: string; status: string };
    const planCalls = () =>
      slack.calls.filter((c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && planCards(c.args) !== null);
    const planCards = (args: Record<string, unknown>) =>
      ((args.blocks as Array<{ type: string; tasks?: Card[] }> | undefined)?.find((b) => b.type === 'plan')?.tasks ?? null) as
        | Card[]
        | null;
    /** The statuses each plan message in `channel` showed, in order. */
    const ticks = (channel: string) =>
      planCalls()
        .filter((c) => c.args.channel === channel)
        .map((c) => planCards(c.args)!.map((t) => t.status));
    let threadChannel = '';
    const shows = (step: number, status: string) => async () => ticks(threadChannel).at(-1)?.[step] === status;
    const plan =
      '# Tiny plan\n\n## Step 1: Say hello\n\nWrite step.txt with one line in it.\n\n## Step 2: Check it\n\nRead step.txt and say what it holds.\n';
    const write = (file: string, content: string) => ({
      toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, file), content } }],
    });
    fake.enqueue(
      write('.agent/plan.md', plan),
      { text: 'Planned.' },
      // Each step answers only once its card shows it running: the block is seen ticking.
      async () => {
        await waitFor(shows(0, 'in_progress'), 90_000, 'the first card in progress');
        return write('step.txt', 'step one\n');
      },
      { text: 'Step one done.' },
      async () => {
        await waitFor(shows(1, 'in_progress'), 90_000, 'the second card in progress');
        return { text: 'Checked.' };
      },
    );
    const parentId = (await exec('create_task', { project_id: 'web', title: 'Plan it', description: 'Write a plan.', repo_id: 'origin' }))
      .created as string;
    const thread = await waitFor(() => rt().db.taskThreads.get(parentId), 90_000, 'the task thread');
    threadChannel = thread.channelId;
    const room = await waitFor(async () => slack.rooms.bySession(parentId), 90_000, 'the room');
    const steps = await waitFor(
      async () => {
        const got = await exec('get_plan', { task_id: parentId });
        return Array.isArray(got.steps) && got.steps.length === 2 ? (got.steps as Array<{ id: string }>) : null;
      },
      120_000,
      'the plan to become steps',
    );
    await waitFor(async () => (await status(steps[1].id)) === 'COMPLETED', 120_000, 'the last step to complete');
    await slack.waitFor(() => room.archived, 'the parent room to be archived', 60_000);
    await app.started.notifier.idle();

    // One plan message in the thread and one in the room, each posted before any step completed and edited in place.
    const inThread = planCalls().filter((c) => c.args.channel === thread.channelId);
    expect(inThread[0]).toMatchObject({ method: 'chat.postMessage', args: { thread_ts: thread.threadTs } });
    expect(planCards(inThread[0].args)?.map((t) => t.task_id)).toEqual(steps.map((t) => t.id));
    expect(new Set(inThread.slice(1).map((c) => `${c.method} ${String(c.args.ts)}`)).size).toBe(1);
    const rank = { pending: 0, in_progress: 1, complete: 2 } as Record<string, number>;
    for (const channel of [thread.channelId, room.channel_id]) {
      const seenTicks = ticks(channel);
      // The first step may start before the block is first posted; nothing is complete yet then.
      expect(seenTicks[0][1]).toBe('pending');
      expect(['pending', 'in_progress']).toContain(seenTicks[0][0]);
      expect(seenTicks).toContainEqual(['in_progress', 'pending']);
      expect(seenTicks).toContainEqual(['complete', 'in_progress']);
      expect(seenTicks.at(-1)).toEqual(['complete', 'complete']);
      // Never backwards.
      seenTicks.slice(1).forEach((now, i) => {
        now.forEach((status, card) => {
          expect(rank[status]).toBeGreaterThanOrEqual(rank[seenTicks[i][card]]);
        });
      });
    }
    // The parent's room stayed open while its steps ran, showing their work on its branch, and closed once.
    expect(room.views.get('diff')?.content).toContain('+step one');
    expect(slack.callsTo('agents.conversations.archive').filter((c) => c.args.channel_id === room.channel_id)).toHaveLength(1);
    expect(
      slack.calls.filter((c) => c.method === 'chat.update' && c.args.channel === room.channel_id && planCards(c.args)),
    ).not.toHaveLength(0);
    expect(await gitOut(origin, 'show', 'main:step.txt')).toBe('step one');
    const shared = slack.threadMessages(thread.channelId, thread.threadTs).find((m) => 'shared_from' in m);
    expect(String(shared?.text)).toMatch(/^🏁 Plan it: completed · /);
  });

  it.each(['not_allowed', 'feature_not_enabled'] as const)(
    'where Slack answers %s, the thread runs alone and nothing fails',
    async (refusal) => {
      slack.rooms.refuse(refusal);
      fake.enqueue({ text: 'Done without a room.' });
      const id = (
        await exec('create_task', { project_id: 'web', title: 'No room', description: 'Nothing to do.', requires_approval: true })
      ).created as string;
      await waitFor(async () => (await status(id)) === 'AWAITING_APPROVAL', 120_000, 'the task to await approval');
      await app.started.notifier.idle();
      const thread = await rt().db.taskThreads.get(id);
      expect(thread).not.toBeNull();
      expect(slack.callsTo('agents.conversations.create')).toHaveLength(1);
      expect(slack.calls.filter((c) => c.method.startsWith('agents.conversations.') && c.method !== 'agents.conversations.create')).toEqual(
        [],
      );
      expect(await exec('get_status')).toMatchObject({
        slack_features: { task_rooms: { mode: 'fallback', method: 'agents.conversations.create', slack_error: refusal } },
      });
      expect(await exec('get_task', { task_id: id })).not.toHaveProperty('room_channel_id');
      // A slash command meant for a room, typed elsewhere, is answered with a sentence.
      await FakeSlack.postToApp(
        app.url,
        slashCommand({ command: '/diff', text: '', channelId: 'CWEB', responseUrl: slack.responseUrl('x') }),
        {
          signingSecret: app.signingSecret,
        },
      );
      const answer = await slack.waitForResponse((r) => r.id === 'x');
      expect(JSON.stringify(answer.body)).toContain("works in a task's room; here, use /aq.");
      expect(appLog.take(`Slack answered ${refusal} to agents.conversations.create`)).toHaveLength(1);
    },
  );
});
