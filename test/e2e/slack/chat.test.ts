import type { StartedApp } from '../../../src/app';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback, slashCommand } from '../../support/slack-payloads';
import { showsLiterally } from '../../support/hostile';

const SECRET = 'test-signing-secret';

describe('a mention through Slack, the chat agent and the command layer', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let model: FakeAnthropic;
  let started: StartedApp;
  let appUrl: string;

  beforeEach(async () => {
    model = await FakeAnthropic.start();
    app = await startTestApp({ ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: model.url, AQ_CHAT_MODEL: 'fake-model-1' });
    ({ slack, started, url: appUrl } = app);
    await started.runtime.handler.execute('create_project', { name: 'web' });
    await started.runtime.handler.execute('set_project_channel', { project_id: 'web', channel_id: 'CPROJ' });
  });
  afterEach(async () => {
    await app.stop();
    await model.close();
  });

  it('creates a task in the channel project and answers in the thread, once per event id', async () => {
    model.enqueue(
      {
        toolUses: [
          { name: 'create_task', input: { title: 'Add dark mode', description: 'Add a dark theme toggle to the settings page.' } },
        ],
      },
      (request) => {
        const result = JSON.parse(String(model.toolResultsIn(request)[0].content));
        return { text: `Queued task \`${result.created}\` in web.` };
      },
    );
    const ts = '1700000000.000100';
    const body = JSON.stringify(
      eventCallback({ type: 'app_mention', user: 'U1', text: '<@UBOT> please add dark mode', ts, channel: 'CPROJ', event_ts: ts }, 'Ev1'),
    );
    const first = await FakeSlack.postToApp(appUrl, body, { signingSecret: SECRET, contentType: 'json' });
    expect(first.status).toBe(200);
    const retry = await FakeSlack.postToApp(appUrl, body, {
      signingSecret: SECRET,
      contentType: 'json',
      headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    });
    expect(retry.status).toBe(200);

    // The reply is streamed (test/e2e/slack/ai-surfaces.test.ts covers the order and the fallback).
    const final = await slack.waitForCall('chat.stopStream');
    const tasks = (await started.runtime.handler.execute('list_tasks', { project_id: 'web' })) as {
      tasks: Array<{ id: string; title: string }>;
    };
    expect(tasks.tasks).toEqual([expect.objectContaining({ title: 'Add dark mode' })]);
    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(slack.callsTo('chat.startStream')[0].args).toMatchObject({
      channel: 'CPROJ',
      thread_ts: '1700000000.000100',
      recipient_user_id: 'U1',
    });
    const streamed = slack
      .callsTo('chat.appendStream')
      .flatMap((c) => c.args.chunks as Array<{ type: string; text?: string }>)
      .filter((c) => c.type === 'markdown_text')
      .map((c) => c.text)
      .join('');
    expect(streamed).toBe(`Queued task \`${tasks.tasks[0].id}\` in web.`);
    const rendered = JSON.stringify(final.args.blocks);
    expect(showsLiterally(final.args.blocks, 'Add dark mode')).toBe(true);
    expect(rendered).toContain('aq_restart_task');
    expect(model.requests[0].body.messages?.[0]).toEqual({ role: 'user', content: '[from <@U1>] please add dark mode' });
  });

  it('sends free-text /aq to the chat agent', async () => {
    model.enqueue({ text: 'Nothing is running right now.' });
    const response = await FakeSlack.postToApp(
      appUrl,
      slashCommand({ text: 'what is running?', channelId: 'CPROJ', responseUrl: slack.responseUrl() }),
      { signingSecret: SECRET },
    );
    expect(response.status).toBe(200);
    await slack.waitFor(() => slack.responses.length === 1, 'the chat answer');
    expect(slack.responses[0].body).toMatchObject({ response_type: 'ephemeral', text: 'Nothing is running right now.' });
  });
});
