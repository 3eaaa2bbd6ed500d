import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback } from '../../support/slack-payloads';

/**
 * Replies in a task's thread, through the real Bolt app and notifier (no agent runs here;
 * thread-steering-claude.test.ts takes a reply to the real Claude Code CLI): who may steer,
 * what the thread shows, and that the channel's other messages are neither read nor stored.
 */
describe('replies in a task thread steer its agent', () => {
  let app: TestApp;
  let slack: FakeSlack;

  beforeEach(async () => {
    app = await startTestApp({ AQ_ADMINS: 'UADMIN' });
    slack = app.slack;
    slack.setResponse('users.info', (args) => ({
      ok: true,
      user: { id: args.user, name: 'x', profile: { display_name: args.user === 'U7' ? 'Sam Steerer' : 'Nora Nosteer' } },
    }));
  });
  afterEach(() => app.stop());

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const deliver = (event: Record<string, unknown>, eventId?: string) =>
    FakeSlack.postToApp(app.url, JSON.stringify(eventCallback(event, eventId ? { eventId } : {})), {
      signingSecret: app.signingSecret,
      contentType: 'json',
    });
  const count = async (table: string) =>
    ((await rt().db.em().getConnection().execute(`select count(*) as n from ${table}`)) as Array<{ n: number }>)[0].n;

  /** A COMPLETED task of project web (steered by U7 alone) with its thread open in CWEB. */
  async function finishedTaskWithThread(channel = 'CWEB'): Promise<{ id: string; threadTs: string }> {
    await exec('create_project', { name: 'web', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'web', channel_id: channel });
    await exec('set_project_steerers', { project_id: 'web', user_ids: ['U7'] });
    const id = (await exec('create_task', { project_id: 'web', title: 'Ship it', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'COMPLETED' });
    await rt().events.emit('task_completed', { projectId: 'web', taskId: id, payload: { title: 'Ship it', summary: 'Done.' } });
    await app.started.notifier.idle();
    const thread = (await rt().db.taskThreads.get(id))!;
    expect(thread.channelId).toBe(channel);
    slack.clearCalls();
    return { id, threadTs: thread.threadTs };
  }

  it('a steerer’s reply to a finished task queues a follow-up, and the thread says so', async () => {
    const { id, threadTs } = await finishedTaskWithThread();
    const reply = slack.userSays({
      channel: 'CWEB',
      user: 'U7',
      threadTs,
      text: 'Please also update <https://docs.example.com/a|the docs>',
    });
    await deliver(reply, 'EvReply1');
    await slack.waitForCall('reactions.add', (c) => c.args.timestamp === reply.ts && c.args.name === 'eyes');
    await app.started.notifier.idle();

    expect((await exec('get_task', { task_id: id })).status).toBe('READY');
    expect(await rt().db.taskMessages.pending(id, 'follow_up')).toEqual([
      expect.objectContaining({ text: 'Please also update the docs (https://docs.example.com/a)', author: 'Sam Steerer' }),
    ]);
    const line = slack.callsTo('chat.postMessage').find((c) => String(c.args.text).startsWith('↩️'))!;
    expect(line.args).toMatchObject({ channel: 'CWEB', thread_ts: threadTs, text: '↩️ Follow-up queued: Ship it' });
    // The root card is redrawn: the task is back in the queue.
    expect(slack.callsTo('chat.update').at(-1)!.args).toMatchObject({ ts: threadTs, text: '🔵 Ship it — ready' });
    expect(slack.callsTo('chat.postEphemeral')).toHaveLength(0);

    // Slack's retry of the same delivery queues nothing more; a second reply joins the follow-up.
    await deliver(reply, 'EvReply1');
    await deliver(slack.userSays({ channel: 'CWEB', user: 'U7', threadTs, text: 'and the changelog' }));
    await slack.waitFor(() => slack.callsTo('reactions.add').length === 2, 'the second reply to be taken');
    expect((await rt().db.taskMessages.pending(id, 'follow_up')).map((m) => m.text)).toEqual([
      'Please also update the docs (https://docs.example.com/a)',
      'and the changelog',
    ]);
  });

  it('a reply to a task queued in its merge train waits for the landing, and its author is told so', async () => {
    const { id, threadTs } = await finishedTaskWithThread();
    await exec('set_task_status', { task_id: id, status: 'AWAITING_APPROVAL' });
    await rt().db.mergeTrain.enter({ taskId: id, projectId: 'web', train: 'project:web' }, Date.now());
    const reply = slack.userSays({ channel: 'CWEB', user: 'U7', threadTs, text: 'One more thing after it lands' });
    await deliver(reply, 'EvReplyTrain');
    const told = await slack.waitForCall('chat.postEphemeral', (c) => c.args.user === 'U7');
    expect(told.args).toMatchObject({
      channel: 'CWEB',
      thread_ts: threadTs,
      text: 'It lands first (#1 in the merge train); your message then runs as its follow-up, on top of the landed work.',
    });
    expect(slack.callsTo('reactions.add').map((c) => c.args.timestamp)).toEqual([reply.ts]);
    // Still in its train; the message waits for the landing.
    expect((await exec('get_task', { task_id: id })).status).toBe('AWAITING_APPROVAL');
    expect((await rt().db.mergeTrain.get(id))?.state).toBe('waiting');
    expect((await rt().db.taskMessages.pending(id, 'follow_up')).map((m) => [m.text, m.author])).toEqual([
      ['One more thing after it lands', 'Sam Steerer'],
    ]);
  });

  it('a reply in a private channel’s task thread steers like one in a public channel (message.groups)', async () => {
    const { id, threadTs } = await finishedTaskWithThread('GWEB');
    const reply = slack.userSays({ channel: 'GWEB', user: 'U7', threadTs, text: 'Also fix the footer' });
    expect(reply.channel_type).toBe('group');
    await deliver(reply, 'EvPrivate1');
    await slack.waitForCall('reactions.add', (c) => c.args.channel === 'GWEB' && c.args.timestamp === reply.ts);
    await app.started.notifier.idle();
    expect((await exec('get_task', { task_id: id })).status).toBe('READY');
    expect((await rt().db.taskMessages.pending(id, 'follow_up')).map((m) => m.text)).toEqual(['Also fix the footer']);
    const line = slack.callsTo('chat.postMessage').find((c) => String(c.args.text).startsWith('↩️'))!;
    expect(line.args).toMatchObject({ channel: 'GWEB', thread_ts: threadTs });
  });

  it('someone who may not steer gets an ephemeral explanation, and the agent gets nothing', async () => {
    const { id, threadTs } = await finishedTaskWithThread();
    await deliver(slack.userSays({ channel: 'CWEB', user: 'U8', threadTs, text: 'delete everything' }));
    const told = await slack.waitForCall('chat.postEphemeral');
    expect(told.args).toMatchObject({ channel: 'CWEB', user: 'U8', thread_ts: threadTs });
    expect(String(told.args.text)).toContain(`did not reach the agent of \`${id}\``);
    expect(String(told.args.text)).toContain("Only the project's steerers or admins");
    expect(await count('task_messages')).toBe(0);
    expect((await exec('get_task', { task_id: id })).status).toBe('COMPLETED');
    expect(slack.callsTo('reactions.add')).toHaveLength(0);
  });

  it('reads and stores nothing of the channel’s other messages', async () => {
    const { threadTs } = await finishedTaskWithThread();
    const elsewhere = slack.userSays({ channel: 'CWEB', user: 'U7', text: 'lunch?' });
    const ignored = [
      elsewhere,
      slack.userSays({ channel: 'CWEB', user: 'U7', threadTs: elsewhere.ts, text: 'yes, at noon' }),
      slack.userSays({ channel: 'CWEB', user: 'U7', threadTs, text: '<@UBOT> what is this task?' }),
      slack.userSays({ channel: 'CWEB', user: 'U9', threadTs, text: 'a bot says hi', extra: { bot_id: 'B9', subtype: 'bot_message' } }),
      {
        type: 'message',
        subtype: 'message_changed',
        channel: 'CWEB',
        channel_type: 'channel',
        hidden: true,
        ts: '1700000999.000001',
        event_ts: '1700000999.000001',
        message: { type: 'message', user: 'U7', text: 'edited', ts: '1700000998.000001', thread_ts: threadTs },
      },
    ];
    for (const event of ignored) expect((await deliver(event)).status).toBe(200);
    // A reply the app does take, sent last, shows the ones before it were passed over.
    const taken = slack.userSays({ channel: 'CWEB', user: 'U7', threadTs, text: 'go on' });
    await deliver(taken);
    await slack.waitForCall('reactions.add', (c) => c.args.timestamp === taken.ts);

    expect(await count('processed_slack_events')).toBe(1);
    expect((await rt().db.taskMessages.pending((await rt().db.taskThreads.taskFor('CWEB', threadTs))!)).map((m) => m.text)).toEqual([
      'go on',
    ]);
    expect(await count('chat_threads')).toBe(0);
    expect(slack.callsTo('users.info').map((c) => c.args.user)).toEqual(['U7']);
    expect(slack.callsTo('conversations.replies')).toHaveLength(0);
  });
});
