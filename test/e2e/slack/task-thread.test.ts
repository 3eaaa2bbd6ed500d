import { startTestApp, type TestApp } from '../../support/slack-app';
import type { ApiCall, FakeSlack } from '../../support/fake-slack';
import { FakeSlack as Fake } from '../../support/fake-slack';
import { blockActions, interactionBody } from '../../support/slack-payloads';

/**
 * A task's thread through the real app and notifier: one root per task, updated in place;
 * progress before the outcome; retries and recoveries continue the same thread.
 */
describe('task threads tell the truth', () => {
  let app: TestApp;
  let slack: FakeSlack;

  beforeEach(async () => {
    app = await startTestApp();
    slack = app.slack;
  });
  afterEach(() => app.stop());

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const emit = (type: Parameters<ReturnType<typeof rt>['events']['emit']>[0], taskId: string, payload: Record<string, unknown>) =>
    rt().events.emit(type, { projectId: 'p', taskId, payload });
  const settle = () => app.started.notifier.idle();
  const json = (call: ApiCall) => JSON.stringify(call.args.blocks);
  const topLevel = () => slack.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts);
  const inThread = () => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts);
  /** Moves a task without an event, as the orchestrator does before it emits its own. */
  const move = (taskId: string, status: string, prUrl: string | null = null) =>
    rt().db.em().getConnection().execute('update tasks set status = ?, pr_url = coalesce(?, pr_url) where id = ?', [status, prUrl, taskId]);
  const rootTs = async (taskId: string) => (await rt().db.taskThreads.get(taskId))!.threadTs;

  async function runningTask(title: string): Promise<string> {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'p', channel_id: 'CP' });
    const id = (await exec('create_task', { project_id: 'p', title, description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'IN_PROGRESS' });
    slack.clearCalls();
    return id;
  }

  it('opens one root per task and redraws it in place as the task moves, Stop only while it runs', async () => {
    const id = await runningTask('Build it');
    await emit('task_started', id, { title: 'Build it', agent_name: 'claude-1', branch: `${id}/build-it` });
    await settle();
    const [root] = topLevel();
    expect(root.args).toMatchObject({ channel: 'CP', text: '🟡 Build it — running' });
    expect(json(root)).toContain(`${id}/build-it`);
    expect(json(root)).toContain('aq_stop_task');
    expect(json(root)).toContain('Stop this task?');

    await move(id, 'AWAITING_APPROVAL', 'https://github.com/acme/w/pull/7');
    await emit('task_awaiting_approval', id, { title: 'Build it', pr_url: 'https://github.com/acme/w/pull/7' });
    await settle();
    const update = slack.callsTo('chat.update').at(-1)!;
    expect(update.args).toMatchObject({ channel: 'CP', ts: await rootTs(id), text: '⏳ Build it — awaiting approval' });
    expect(json(update)).toContain('https://github.com/acme/w/pull/7');
    expect(json(update)).not.toContain('aq_stop_task');
    const reply = inThread().at(-1)!;
    expect(reply.args).toMatchObject({ channel: 'CP', thread_ts: await rootTs(id), text: '⏳ Awaiting approval: Build it' });
    expect(reply.args.reply_broadcast).toBeUndefined();
    expect(json(reply)).toContain('aq_approve_task');

    // Approve from the thread reply: the root is redrawn by the task's own event. The PR is
    // forgotten first, since Approve would merge it with gh (pull-requests.test.ts covers that).
    await rt().db.em().getConnection().execute('update tasks set pr_url = null where id = ?', [id]);
    await Fake.postToApp(
      app.url,
      interactionBody(
        blockActions({
          actionId: 'aq_approve_task',
          value: id,
          channelId: 'CP',
          messageTs: '1700000000.999999',
          responseUrl: slack.responseUrl('a'),
        }),
      ),
      { signingSecret: app.signingSecret },
    );
    await slack.waitFor(
      () => slack.callsTo('chat.update').some((c) => String(c.args.text).startsWith('🟢')),
      'the root redrawn as completed',
    );
    await settle();
    expect(topLevel()).toHaveLength(1);
  });

  it('posts progress before the outcome, all in the thread', async () => {
    const id = await runningTask('Write notes');
    await emit('task_started', id, { title: 'Write notes', agent_name: 'claude-1' });
    await emit('task_progress', id, { text: 'Read · README.md\nWrite · notes.txt' });
    await move(id, 'COMPLETED');
    await emit('task_completed', id, { title: 'Write notes', summary: 'Wrote **notes.txt**.', tokens: 1200, cost_usd: 0.0123 });
    await settle();
    expect(topLevel()).toHaveLength(1);
    const replies = inThread().map((c) => String(c.args.text));
    expect(replies).toEqual(['💬 Write notes: Write · notes.txt', '✅ Completed: Write notes']);
    const completion = inThread()[1];
    expect(json(completion)).toContain('Wrote *notes.txt*.');
    expect(json(completion)).toContain('1,200 tokens');
    expect(json(completion)).toContain('$0.01');
    expect(slack.callsTo('chat.update').at(-1)!.args.text).toBe('🟢 Write notes — completed');
    await rt().db.tokenUsage.record({
      projectId: 'p',
      taskId: id,
      agentId: null,
      source: 'agent',
      inputTokens: 1000,
      outputTokens: 234,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      costUsd: 0.5,
    });
    await emit('task_restarted', id, { title: 'Write notes', previous_status: 'COMPLETED' });
    await settle();
    const root = JSON.stringify(slack.callsTo('chat.update').at(-1)!.args.blocks);
    expect(root).toContain('1,234 tokens · $0.50');
  });

  it('continues the same thread when a task is retried or recovered after a restart', async () => {
    const id = await runningTask('Flaky job');
    await emit('task_started', id, { title: 'Flaky job', agent_name: 'claude-1' });
    await move(id, 'READY');
    await emit('task_retrying', id, { title: 'Flaky job', reason: 'recovered after restart', previous_status: 'IN_PROGRESS' });
    await settle(); // the root shows the task as it is when the notice is posted
    await move(id, 'IN_PROGRESS');
    await emit('task_started', id, { title: 'Flaky job', agent_name: 'claude-2' });
    await settle();

    expect(topLevel()).toHaveLength(1);
    const replies = inThread();
    const ts = await rootTs(id);
    expect(replies.every((r) => r.args.thread_ts === ts)).toBe(true);
    expect(replies.map((r) => String(r.args.text))).toEqual(['🔁 Back in the queue: Flaky job', '🟡 Started again: Flaky job']);
    expect(json(replies[0])).toContain('recovered after restart');
    expect(json(replies[1])).toContain('claude-2');
    const updates = slack.callsTo('chat.update').map((c) => String(c.args.text));
    expect(updates).toEqual(['🔵 Flaky job — ready', '🟡 Flaky job — running']);
  });

  it('puts the recovery notice of a daemon restart in the task thread, naming the task', async () => {
    const id = await runningTask('Long build');
    await emit('task_started', id, { title: 'Long build', agent_name: 'claude-1' });
    await settle();
    // A daemon starting on this database finds the run it does not own and puts it back in the
    // queue (scheduling paused, so it does not start the task again here).
    await exec('orchestrator_control', { action: 'pause' });
    await rt().startDaemon();
    await slack.waitFor(() => inThread().some((c) => String(c.args.text) === '🔁 Back in the queue: Long build'), 'the recovery notice');
    await rt().stopDaemon();
    await settle();
    expect(topLevel()).toHaveLength(1);
    const notice = inThread().find((c) => String(c.args.text).startsWith('🔁'))!;
    expect(notice.args.thread_ts).toBe(await rootTs(id));
    expect(json(notice)).toContain('recovered after restart');
    expect((await exec('get_task', { task_id: id })).status).toBe('READY');
  });

  it('does not open a thread for a task event that is only a notice', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'p', channel_id: 'CP' });
    const id = (await exec('create_task', { project_id: 'p', title: 'Quiet', description: 'd' })).created as string;
    await exec('restart_task', { task_id: id });
    await exec('set_task_status', { task_id: id, status: 'FAILED' });
    await settle();
    expect(slack.callsTo('chat.postMessage')).toHaveLength(0);

    await emit('task_failed', id, { title: 'Quiet', error: 'boom\nstack', error_type: 'unknown', retry_count: 3, max_retries: 3 });
    await settle();
    const [root, failed] = slack.callsTo('chat.postMessage');
    expect(root.args.thread_ts).toBeUndefined();
    expect(root.args.text).toBe('🔴 Quiet — failed');
    expect(failed.args).toMatchObject({ thread_ts: await rootTs(id), text: '🔴 Failed: Quiet' });
    expect(json(failed)).toContain('aq_get_agent_error');
    expect(json(failed)).not.toContain('stack');
  });
});
