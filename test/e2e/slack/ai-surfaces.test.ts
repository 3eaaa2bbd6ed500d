import { AppLog } from '../../support/app-log';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { type ApiCall, FakeSlack } from '../../support/fake-slack';
import { HOSTILE, HOSTILE_BLOCK, showsLiterally } from '../../support/hostile';
import { renderResult } from '../../../src/slack/blocks/render';
import { waitFor } from '../../integration/orchestrator/harness';
import {
  agentSessionStopped,
  appMention,
  assistantThreadStarted,
  blockActions,
  directMessage,
  eventCallback,
  feedbackClick,
  interactionBody,
} from '../../support/slack-payloads';

/**
 * Slack's AI surfaces through the real app, the chat agent (fake Messages API) and the notifier:
 * status, streaming and agent sessions in order; the assistant panel from real data; feedback
 * kept with the conversation; and the classic path when the workspace refuses each method.
 */
const NATIVE_METHODS = [
  'assistant.threads.setStatus',
  'assistant.threads.setSuggestedPrompts',
  'assistant.threads.setTitle',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
  'agents.sessions.setStatus',
];
const REPLY_METHODS = new Set([...NATIVE_METHODS, 'chat.postMessage', 'chat.update', 'chat.postEphemeral']);

describe("Slack's AI surfaces", () => {
  let app: TestApp;
  let appLog: AppLog;
  let slack: FakeSlack;
  let model: FakeAnthropic;

  beforeEach(async () => {
    model = await FakeAnthropic.start();
    appLog = new AppLog();
    app = await startTestApp(
      { ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: model.url, AQ_CHAT_MODEL: 'fake-model-1' },
      { log: appLog.log },
    );
    slack = app.slack;
    await exec('create_project', { name: 'web', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'web', channel_id: 'CPROJ' });
    slack.clearCalls();
  });
  afterEach(async () => {
    try {
      await app.stop();
      await model.close();
    } finally {
      appLog.flush();
    }
  });

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const post = (body: unknown, contentType: 'json' | 'form' = 'json') =>
    FakeSlack.postToApp(app.url, contentType === 'json' ? JSON.stringify(body) : (body as string), {
      signingSecret: app.signingSecret,
      contentType,
    });
  const mention = (text: string, ts: string) => post(eventCallback(appMention({ text: `<@UBOT> ${text}`, channelId: 'CPROJ', ts })));
  const sequence = (calls: ApiCall[] = slack.calls) => calls.filter((c) => REPLY_METHODS.has(c.method)).map((c) => c.method);
  const chunks = (calls: ApiCall[]) => calls.flatMap((c) => (c.args.chunks as Array<Record<string, unknown>> | undefined) ?? []);
  const streamedText = () =>
    chunks([...slack.callsTo('chat.startStream'), ...slack.callsTo('chat.appendStream')])
      .filter((c) => c.type === 'markdown_text')
      .map((c) => c.text)
      .join('');
  const refuseNative = (error = 'not_allowed') => {
    for (const method of NATIVE_METHODS) slack.setResponse(method, { ok: false, error });
  };
  const slackFeatures = async () => (await exec('get_status')).slack_features as Record<string, Record<string, unknown>> | undefined;

  async function runningTask(title: string): Promise<string> {
    const id = (await exec('create_task', { project_id: 'web', title, description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'IN_PROGRESS' });
    return id;
  }
  const emit = (type: 'task_started' | 'task_awaiting_approval' | 'task_completed', taskId: string, title: string) =>
    rt().events.emit(type, { projectId: 'web', taskId, payload: { title } });

  it('streams a chat reply: status while the model works, tool calls as steps, the answer, then the card and feedback', async () => {
    model.enqueue(
      { toolUses: [{ name: 'create_task', input: { title: 'Add dark mode', description: 'A theme toggle.' } }] },
      {
        text: 'Queued **Add dark mode** in web.',
      },
    );
    await mention('add dark mode', '1700000000.000100');
    const stop = await slack.waitForCall('chat.stopStream');

    expect(sequence()).toEqual([
      'assistant.threads.setStatus',
      'assistant.threads.setStatus',
      'chat.startStream',
      'chat.appendStream',
      'chat.appendStream',
      'chat.stopStream',
    ]);
    const [thinking, running] = slack.callsTo('assistant.threads.setStatus');
    expect(thinking.args).toMatchObject({ channel_id: 'CPROJ', thread_ts: '1700000000.000100', status: 'Thinking…' });
    expect(Array.isArray(thinking.args.loading_messages)).toBe(true);
    expect(running.args.status).toBe('Running create_task…');

    const start = slack.callsTo('chat.startStream')[0];
    expect(start.args).toMatchObject({
      channel: 'CPROJ',
      thread_ts: '1700000000.000100',
      recipient_user_id: 'U1',
      recipient_team_id: 'T1',
    });
    const steps = chunks(slack.callsTo('chat.startStream').concat(slack.callsTo('chat.appendStream'))).filter(
      (c) => c.type === 'task_update',
    );
    expect(steps.map((s) => [s.title, s.status])).toEqual([
      ['create task', 'in_progress'],
      ['create task', 'complete'],
    ]);
    expect(steps[0].id).toBe(steps[1].id);
    expect(streamedText()).toBe('Queued *Add dark mode* in web.');

    const blocks = JSON.stringify(stop.args.blocks);
    expect(blocks).toContain('aq_restart_task'); // the created task's card
    expect(blocks).toContain('"type":"feedback_buttons"');
    expect(blocks).toContain('good|CPROJ:1700000000.000100');
  });

  it('keeps hostile model text escaped in the streamed answer and its steps', async () => {
    model.enqueue({ toolUses: [{ name: '<!channel>', input: { text: HOSTILE } }] }, { text: HOSTILE_BLOCK });
    await mention('say something odd', '1700000000.000200');
    await slack.waitForCall('chat.stopStream');
    const steps = chunks(slack.callsTo('chat.startStream').concat(slack.callsTo('chat.appendStream'))).filter(
      (c) => c.type === 'task_update',
    );
    expect(steps.map((s) => [s.title, s.status])).toEqual([
      ['unknown command', 'in_progress'],
      ['unknown command', 'error'],
    ]);
    expect(slack.callsTo('assistant.threads.setStatus').map((c) => c.args.status)).toContain('Running !channel…');
    const text = streamedText();
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('&lt;@U999&gt;');
    expect(text).toContain('&amp;');
    expect(text).not.toMatch(/<!channel>|<@U999>|<https?:/);
    // The fake validates every streamed chunk too: app.stop() fails the test on any violation.
  });

  it('records 👍 / 👎 with the conversation and thanks only the person who clicked', async () => {
    model.enqueue({ text: 'All quiet.' });
    await mention('anything running?', '1700000000.000300');
    await slack.waitForCall('chat.stopStream');
    const conversation = 'CPROJ:1700000000.000300';
    slack.clearCalls();

    const native = feedbackClick({
      actionId: 'aq_chat_feedback',
      value: `good|${conversation}`,
      channelId: 'CPROJ',
      messageTs: '1700000000.000301',
      responseUrl: slack.responseUrl('fb1'),
    });
    expect((await post(interactionBody(native), 'form')).status).toBe(200);
    await slack.waitForResponse((r) => r.id === 'fb1');
    const classic = blockActions({
      actionId: 'aq_chat_feedback_bad',
      value: `bad|${conversation}`,
      channelId: 'CPROJ',
      messageTs: '1700000000.000301',
      userId: 'U2',
      responseUrl: slack.responseUrl('fb2'),
    });
    await post(interactionBody(classic), 'form');
    await slack.waitForResponse((r) => r.id === 'fb2');

    const stored = await rt().db.chatThreads.feedback(conversation);
    expect(stored.map((f) => [f.user_id, f.rating, f.message_ts])).toEqual([
      ['U1', 'good', '1700000000.000301'],
      ['U2', 'bad', '1700000000.000301'],
    ]);
    expect(slack.responses.map((r) => r.body.response_type)).toEqual(['ephemeral', 'ephemeral']);
    expect(sequence()).toEqual([]); // nothing posted where others see it
  });

  it('makes a task thread an agent session: processing, suspended, closed, titled with the task', async () => {
    const id = await runningTask('Build it');
    await emit('task_started', id, 'Build it');
    await emit('task_awaiting_approval', id, 'Build it');
    await emit('task_completed', id, 'Build it');
    await app.started.notifier.idle();

    const root = slack.callsTo('chat.postMessage').find((c) => !c.args.thread_ts)!;
    const rootTs = (await rt().db.taskThreads.get(id))!.threadTs;
    const sessions = slack.callsTo('agents.sessions.setStatus');
    expect(sessions.map((c) => c.args.status)).toEqual(['processing', 'suspended', 'closed']);
    for (const call of sessions) expect(call.args).toMatchObject({ channel_id: 'CPROJ', thread_ts: rootTs, title: 'Build it' });
    expect(root.at).toBeLessThanOrEqual(sessions[0].at);
    expect(slack.calls.indexOf(root)).toBeLessThan(slack.calls.indexOf(sessions[0]));
  });

  it("stops the task when someone presses Slack's Stop on its session, and closes the session", async () => {
    const id = await runningTask('Long build');
    await emit('task_started', id, 'Long build');
    await app.started.notifier.idle();
    const thread = (await rt().db.taskThreads.get(id))!;

    await post(eventCallback(agentSessionStopped({ channelId: thread.channelId, threadTs: thread.threadTs })));
    await slack.waitFor(() => slack.callsTo('agents.sessions.setStatus').some((c) => c.args.status === 'closed'), 'the session closed');
    expect((await exec('get_task', { task_id: id })).status).toBe('BLOCKED');
    expect(slack.callsTo('agents.sessions.setStatus').map((c) => c.args.status)).toEqual(['processing', 'closed']);

    // Stop again on the stopped task: only the person who pressed it learns why nothing happened.
    await post(eventCallback(agentSessionStopped({ channelId: thread.channelId, threadTs: thread.threadTs, userId: 'U2' })));
    const told = await slack.waitForCall('chat.postEphemeral');
    expect(told.args).toMatchObject({ channel: 'CPROJ', user: 'U2', thread_ts: thread.threadTs });
    expect(String(told.args.text)).toContain('only running tasks can be stopped');
  });

  it('opens the assistant panel with prompts from the real queue, and answers there through the same chat agent', async () => {
    const waiting = (await exec('create_task', { project_id: 'web', title: 'Ship the login page', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: waiting, status: 'AWAITING_APPROVAL' });
    const broken = (await exec('create_task', { project_id: 'web', title: 'Fix the flaky test', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: broken, status: 'FAILED' });

    await post(eventCallback(assistantThreadStarted({ channelId: 'D1', threadTs: '1700000001.000100', contextChannelId: 'CPROJ' })));
    const prompts = await slack.waitForCall('assistant.threads.setSuggestedPrompts');
    expect(prompts.args).toMatchObject({ channel_id: 'D1', thread_ts: '1700000001.000100', title: 'These need you:' });
    const list = prompts.args.prompts as Array<{ title: string; message: string }>;
    expect(list.length).toBeLessThanOrEqual(4);
    expect(list.map((p) => p.title)).toEqual([
      'Review “Ship the login page”',
      'Why did “Fix the flaky test” fail?',
      'What is going on in web?',
      'What needs me?',
    ]);
    expect(list[0].message).toContain(waiting);
    expect(list[1].message).toContain(broken);

    model.enqueue({ text: 'Two tasks need you.' });
    await post(eventCallback(directMessage({ text: 'What needs me?', channelId: 'D1', threadTs: '1700000001.000100' })));
    await slack.waitForCall('chat.stopStream');
    expect(slack.callsTo('assistant.threads.setTitle')[0].args).toMatchObject({ channel_id: 'D1', title: 'What needs me?' });
    expect(slack.callsTo('chat.startStream')[0].args).toMatchObject({ channel: 'D1', thread_ts: '1700000001.000100' });
    expect(model.requests.at(-1)!.body.messages?.at(-1)).toEqual({ role: 'user', content: '[from <@U1>] What needs me?' });
  });

  it('falls back to the classic messages when the workspace answers not_allowed to every native method, once, and says so in get_status', async () => {
    refuseNative();
    // Slack's feedback block refused too: the reply keeps plain 👍 / 👎 buttons.
    slack.setResponse('chat.update', (args) =>
      JSON.stringify(args.blocks ?? '').includes('context_actions')
        ? { ok: false, error: 'invalid_blocks' }
        : { ok: true, channel: args.channel, ts: args.ts },
    );
    model.enqueue({ toolUses: [{ name: 'list_tasks', input: {} }] }, { text: `Nothing here: ${HOSTILE}` }, { text: 'Still nothing.' });
    await mention('what is queued?', '1700000002.000100');
    await slack.waitFor(
      () => slack.callsTo('chat.update').some((c) => JSON.stringify(c.args.blocks ?? '').includes('aq_chat_feedback_good')),
      'the classic reply',
    );
    const placeholder = slack.callsTo('chat.postMessage')[0];
    expect(placeholder.args).toMatchObject({ channel: 'CPROJ', thread_ts: '1700000002.000100', text: ':thought_balloon: Thinking…' });
    expect(slack.callsTo('chat.update').some((c) => String(c.args.text) === ':thought_balloon: Running list_tasks…')).toBe(true);

    const before = slack.calls.length;
    await mention('and now?', '1700000002.000200');
    await slack.waitFor(() => slack.callsTo('chat.update').some((c) => String(c.args.text) === 'Still nothing.'), 'the second reply');
    // Detected once: the second reply does not ask the refused methods again.
    expect(slack.calls.slice(before).filter((c) => NATIVE_METHODS.includes(c.method))).toEqual([]);
    expect(slack.callsTo('assistant.threads.setStatus')).toHaveLength(1);

    const id = await runningTask('Refused session');
    await emit('task_started', id, 'Refused session');
    await emit('task_completed', id, 'Refused session');
    await app.started.notifier.idle();
    expect(slack.callsTo('agents.sessions.setStatus')).toHaveLength(1);
    expect(slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('Refused session')).length).toBeGreaterThan(0);

    const hostile = (await exec('create_task', { project_id: 'web', title: HOSTILE, description: 'd' })).created as string;
    await exec('set_task_status', { task_id: hostile, status: 'AWAITING_APPROVAL' });
    await post(eventCallback(assistantThreadStarted({ channelId: 'D1', threadTs: '1700000003.000100' })));
    await slack.waitFor(() => slack.callsTo('chat.postMessage').some((c) => c.args.channel === 'D1'), 'the suggestions as a message');
    const suggestions = slack.callsTo('chat.postMessage').find((c) => c.args.channel === 'D1')!;
    expect(showsLiterally(suggestions.args.blocks, `Task ${hostile} (${HOSTILE})`)).toBe(true);

    const features = await slackFeatures();
    expect(features).toMatchObject({
      assistant_status: { mode: 'fallback', slack_error: 'not_allowed', method: 'assistant.threads.setStatus' },
      agent_sessions: { mode: 'fallback', slack_error: 'not_allowed', method: 'agents.sessions.setStatus' },
      assistant_panel: { mode: 'fallback', slack_error: 'not_allowed', method: 'assistant.threads.setSuggestedPrompts' },
      feedback_buttons: { mode: 'fallback', slack_error: 'invalid_blocks', method: 'chat.update' },
    });
    const card = renderResult('get_status', {}, await exec('get_status'));
    expect(showsLiterally(card.blocks, "Classic messages instead of Slack's assistant status (not_allowed), ")).toBe(true);
    const logged = appLog.take('Slack answered');
    expect(logged).toHaveLength(4); // once per refused feature, however often it was needed
    expect(logged.every((m) => !/\n\s+at /.test(m))).toBe(true);
  });

  it('posts the reply as a message when only streaming is refused', async () => {
    for (const method of ['chat.startStream', 'chat.appendStream', 'chat.stopStream'])
      slack.setResponse(method, { ok: false, error: 'unknown_method' });
    model.enqueue({ toolUses: [{ name: 'get_status', input: {} }] }, { text: 'All idle.' });
    await mention('status?', '1700000004.000100');
    await slack.waitFor(() => slack.callsTo('chat.postMessage').some((c) => c.args.text === 'All idle.'), 'the posted reply');
    // The status keeps telling what happens (Slack clears it when the reply is posted).
    expect(sequence()).toEqual([
      'assistant.threads.setStatus',
      'assistant.threads.setStatus',
      'chat.startStream',
      'assistant.threads.setStatus',
      'chat.postMessage',
    ]);
    expect(slack.callsTo('assistant.threads.setStatus').map((c) => c.args.status)).toEqual([
      'Thinking…',
      'Running get_status…',
      'Thinking about the results…',
    ]);
    const reply = slack.callsTo('chat.postMessage')[0];
    expect(reply.args.thread_ts).toBe('1700000004.000100');
    expect(JSON.stringify(reply.args.blocks)).toContain('feedback_buttons');
    // The reply is out before the app stores that Slack took the feedback block.
    const features = await waitFor(
      async () => {
        const now = await slackFeatures();
        return now?.feedback_buttons && now;
      },
      5_000,
      'feedback_buttons recorded',
    );
    expect(features).toMatchObject({
      streaming: { mode: 'fallback', slack_error: 'unknown_method', method: 'chat.startStream' },
      assistant_status: { mode: 'native' },
      feedback_buttons: { mode: 'native' },
    });
    expect(appLog.take('Slack answered unknown_method to chat.startStream')).toHaveLength(1);
  });
});
