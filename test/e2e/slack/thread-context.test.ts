import type { StartedApp } from '../../../src/app';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback } from '../../support/slack-payloads';
import { showsLiterally } from '../../support/hostile';

const NAMES: Record<string, string> = { U31: 'Alice Reporter', U32: 'Bob Builder' };

/** The text blocks of the first user message of a model request, joined. */
function firstUserText(request: { body: { messages?: Array<{ role: string; content: unknown }> } }): string[] {
  const content = request.body.messages?.[0]?.content;
  if (typeof content === 'string') return [content];
  return (content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '');
}

/** Everything the app streamed as its reply so far. */
function streamedReply(slack: FakeSlack): string {
  return slack.calls
    .filter((c) => ['chat.startStream', 'chat.appendStream', 'chat.stopStream'].includes(c.method))
    .flatMap((c) => (c.args.chunks as Array<{ type: string; text?: string }> | undefined) ?? [])
    .filter((c) => c.type === 'markdown_text')
    .map((c) => c.text)
    .join('');
}

/** Waits until a reply containing `text` has been streamed and a stream closed. */
async function replied(slack: FakeSlack, text: string, what = 'the reply'): Promise<void> {
  await slack.waitFor(() => slack.callsTo('chat.stopStream').length > 0 && streamedReply(slack).includes(text), what);
}

/**
 * "@agent-queue fix this" under a bug report, through the real Bolt app, the chat agent and the
 * notifier: the model reads the thread (names, links), the task records where it was asked for,
 * and that thread is told where the task's own thread is.
 */
describe('a mention in a thread gives the chat agent the thread', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let model: FakeAnthropic;
  let started: StartedApp;

  beforeEach(async () => {
    model = await FakeAnthropic.start();
    app = await startTestApp({ ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: model.url, AQ_CHAT_MODEL: 'fake-model-1' });
    ({ slack, started } = app);
    slack.setResponse('users.info', (args) => ({
      ok: true,
      user: { id: args.user, name: String(args.user).toLowerCase(), profile: { display_name: NAMES[String(args.user)] ?? '' } },
    }));
    await started.runtime.handler.execute('create_project', { name: 'web', auto_create_channels: false });
    await started.runtime.handler.execute('set_project_channel', { project_id: 'web', channel_id: 'CPROJ' });
  });
  afterEach(async () => {
    await app.stop();
    await model.close();
  });

  const deliver = (event: Record<string, unknown>) =>
    FakeSlack.postToApp(app.url, JSON.stringify(eventCallback(event)), { signingSecret: app.signingSecret, contentType: 'json' });
  const exec = (name: string, args: Record<string, unknown>) => started.runtime.handler.executeAny(name, args, { source: 'system' });

  it('"fix this" under a bug report: the model reads the thread, the task carries it and links back', async () => {
    const report = slack.userSays({
      channel: 'CPROJ',
      user: 'U31',
      text: 'Login crashes on Safari: TypeError in <https://sentry.example.com/issues/42|Sentry issue 42> &amp; people are stuck',
    });
    const more = slack.userSays({ channel: 'CPROJ', user: 'U32', threadTs: report.ts, text: 'Also on iOS, see <@U31>’s screenshot' });
    const ask = slack.userSays({ channel: 'CPROJ', user: 'U32', threadTs: report.ts, text: '<@UBOT> fix this' });
    // The channel's own message events arrive too: none of them is for the app to read.
    for (const event of [report, more, ask]) expect((await deliver(event)).status).toBe(200);

    const description =
      'Login crashes on Safari (reported by Alice Reporter): a TypeError, see Sentry issue 42 (https://sentry.example.com/issues/42). Also on iOS.';
    model.enqueue({ toolUses: [{ name: 'create_task', input: { title: 'Fix the Safari login crash', description } }] }, (request) => ({
      text: `Queued \`${JSON.parse(String(model.toolResultsIn(request)[0].content)).created}\`.`,
    }));
    await deliver({ ...ask, type: 'app_mention', channel: 'CPROJ' });
    await replied(slack, 'Queued');

    const [context, asked] = firstUserText(model.requests[0]);
    expect(asked).toBe('[from <@U32>] fix this');
    expect(context).toContain('Alice Reporter (U31), 20');
    expect(context).toContain(
      'Login crashes on Safari: TypeError in Sentry issue 42 (https://sentry.example.com/issues/42) & people are stuck',
    );
    expect(context).toContain('Bob Builder (U32)');
    expect(context).toContain('Also on iOS, see @Alice Reporter’s screenshot');
    expect(context).not.toContain('fix this');

    const { tasks } = (await exec('list_tasks', { project_id: 'web' })) as { tasks: Array<{ id: string }> };
    const id = tasks[0].id;
    const permalink = `https://example.slack.com/archives/CPROJ/p${report.ts.replace('.', '')}`;
    expect(await exec('get_task', { task_id: id })).toMatchObject({ description, source_url: permalink });
    // The chat reply shows the task's card with the link to where it was asked for.
    const card = slack.callsTo('chat.stopStream').at(-1)!;
    expect(JSON.stringify(card.args.blocks)).toContain(permalink);
    expect(showsLiterally(card.args.blocks, 'Asked for in: ')).toBe(true);

    // The memory keeps the conversation, not the thread it was read from.
    const memory = JSON.stringify(await started.runtime.db.chatThreads.load(`CPROJ:${report.ts}`));
    expect(memory).toContain('fix this');
    expect(memory).not.toContain('Earlier messages');
    expect(memory).not.toContain('people are stuck');

    // Once the task has its own thread, the thread it was asked for in links to it.
    await exec('set_task_status', { task_id: id, status: 'IN_PROGRESS' });
    await started.runtime.events.emit('task_started', { projectId: 'web', taskId: id, payload: { title: 'Fix the Safari login crash' } });
    await started.notifier.idle();
    const taskThread = (await started.runtime.db.taskThreads.get(id))!;
    const link = slack.callsTo('chat.postMessage').find((c) => c.args.thread_ts === report.ts && String(c.args.text).startsWith('🧵'))!;
    expect(link.args.channel).toBe('CPROJ');
    expect(JSON.stringify(link.args.blocks)).toContain(`https://example.slack.com/archives/CPROJ/p${taskThread.threadTs.replace('.', '')}`);

    // How it ends is told there too, once: a retry on the way is not an end.
    const told = () =>
      slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === report.ts && !String(c.args.text).startsWith('🧵'));
    await started.runtime.events.emit('task_failed', {
      projectId: 'web',
      taskId: id,
      payload: { title: 'Fix the Safari login crash', will_retry: true },
    });
    await started.runtime.events.emit('task_completed', { projectId: 'web', taskId: id, payload: { title: 'Fix the Safari login crash' } });
    await started.notifier.idle();
    expect(told().map((c) => c.args.text)).toEqual([`✅ Task ${id} Fix the Safari login crash is done.`]);
    expect(JSON.stringify(told()[0].args.blocks)).toContain(`p${taskThread.threadTs.replace('.', '')}|details in its thread`);
  });

  it('a mention in a private channel’s thread reads that thread too (groups:history)', async () => {
    // The fake's token has manifest.yml's scopes; reading a private channel's thread needs groups:history.
    await exec('set_project_channel', { project_id: 'web', channel_id: 'GPRIV' });
    const root = slack.userSays({ channel: 'GPRIV', user: 'U31', text: 'The invoice PDF is blank on Firefox' });
    slack.userSays({ channel: 'GPRIV', user: 'U32', threadTs: root.ts, text: 'Only since the 2.3 release' });
    const ask = slack.userSays({ channel: 'GPRIV', user: 'U32', threadTs: root.ts, text: '<@UBOT> what broke?' });
    model.enqueue({ text: 'The PDF renderer.' });
    await deliver({ ...ask, type: 'app_mention', channel: 'GPRIV' });
    await replied(slack, 'The PDF renderer.');
    const [context] = firstUserText(model.requests[0]);
    expect(context).toContain('The invoice PDF is blank on Firefox');
    expect(context).toContain('Bob Builder');
    expect(context).toContain('Only since the 2.3 release');
    const read = slack.callsTo('conversations.replies');
    expect(read.map((c) => c.args.channel)).toEqual(['GPRIV']);
  });

  it('keeps the thread bounded: the first message, then the latest, within the character budget', async () => {
    const root = slack.userSays({ channel: 'CPROJ', user: 'U31', text: 'ROOT: the report' });
    for (let i = 1; i <= 60; i++)
      slack.userSays({ channel: 'CPROJ', user: 'U32', threadTs: root.ts, text: `reply ${i} ${'x'.repeat(600)}` });
    const ask = slack.userSays({ channel: 'CPROJ', user: 'U32', threadTs: root.ts, text: '<@UBOT> what is this about?' });
    model.enqueue({ text: 'A report.' });
    await deliver({ ...ask, type: 'app_mention', channel: 'CPROJ' });
    await replied(slack, 'A report.');

    const [context] = firstUserText(model.requests[0]);
    expect(context).toContain('ROOT: the report');
    expect(context).toContain('reply 60 ');
    expect(context).not.toContain('reply 1 ');
    expect(context).toMatch(/… \d+ messages left out …/);
    expect(context.length).toBeLessThan(13_500);
    // One page of 200 held the whole thread; display names were looked up once per person.
    expect(slack.callsTo('conversations.replies')).toHaveLength(1);
    expect(slack.callsTo('users.info').map((c) => c.args.user)).toEqual(['U31', 'U32']);
  });

  it('a mention that starts a thread has no thread to read, and still records where it was asked (not where the model says)', async () => {
    model.enqueue(
      // A link the model puts in source_url does not replace the thread the request was made in.
      {
        toolUses: [
          {
            name: 'create_task',
            input: { title: 'Add dark mode', description: 'A dark theme.', source_url: 'https://design.example/dark' },
          },
        ],
      },
      { text: 'Queued.' },
    );
    const ask = slack.userSays({ channel: 'CPROJ', user: 'U31', text: '<@UBOT> add dark mode' });
    await deliver({ ...ask, type: 'app_mention', channel: 'CPROJ' });
    await replied(slack, 'Queued.');
    expect(model.requests[0].body.messages?.[0]).toEqual({ role: 'user', content: '[from <@U31>] add dark mode' });
    expect(slack.callsTo('conversations.replies')).toHaveLength(0);
    const { tasks } = (await exec('list_tasks', { project_id: 'web' })) as { tasks: Array<{ id: string }> };
    expect((await exec('get_task', { task_id: tasks[0].id })).source_url).toBe(
      `https://example.slack.com/archives/CPROJ/p${ask.ts.replace('.', '')}`,
    );
  });

  it('in a task’s thread, the model is told which task it is; a DM in a thread reads that thread', async () => {
    const id = (await exec('create_task', { project_id: 'web', title: 'Build the thing', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'IN_PROGRESS' });
    await started.runtime.events.emit('task_started', { projectId: 'web', taskId: id, payload: { title: 'Build the thing' } });
    await started.notifier.idle();
    const root = (await started.runtime.db.taskThreads.get(id))!.threadTs;
    model.enqueue({ text: 'It is building the thing.' });
    const ask = slack.userSays({ channel: 'CPROJ', user: 'U31', threadTs: root, text: '<@UBOT> how is it going?' });
    await deliver({ ...ask, type: 'app_mention', channel: 'CPROJ' });
    await replied(slack, 'It is building the thing.');
    const [context] = firstUserText(model.requests[0]);
    expect(context).toContain(`This is the thread of task \`${id}\``);
    expect(context).toContain('Agent Queue (this app)');
    expect(context).toContain('Build the thing — running');

    model.enqueue({ text: 'Noted.' });
    const dmRoot = slack.userSays({ channel: 'D31', user: 'U31', text: 'DM ROOT: the deploy failed at step 3' });
    const dm = slack.userSays({ channel: 'D31', user: 'U31', threadTs: dmRoot.ts, text: 'what should we do about it?' });
    await deliver(dm);
    await replied(slack, 'Noted.', 'the DM reply');
    const [dmContext, dmText] = firstUserText(model.requests[1]);
    expect(dmContext).toContain('Alice Reporter (U31)');
    expect(dmContext).toContain('DM ROOT: the deploy failed at step 3');
    expect(dmText).toBe('[from <@U31>] what should we do about it?');
  });
});
