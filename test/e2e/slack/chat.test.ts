import { LogLevel } from '@slack/bolt';
import { loadConfig } from '../../../src/config';
import { startApp, type StartedApp } from '../../../src/app';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { FakeSlack } from '../../support/fake-slack';
import { slashCommand } from '../../support/slack-payloads';
import { makeTempDir } from '../../support/tmp';

const SECRET = 'chat-secret';

function mentionEnvelope(eventId: string, text: string, ts: string): string {
  return JSON.stringify({
    token: 'verification-token',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: eventId,
    event_time: 1_700_000_000,
    authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
    event: { type: 'app_mention', user: 'U1', text, ts, channel: 'CPROJ', event_ts: ts },
  });
}

describe('a mention through Slack, the chat agent and the command layer', () => {
  let slack: FakeSlack;
  let model: FakeAnthropic;
  let started: StartedApp;
  let appUrl: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    slack = await FakeSlack.start();
    model = await FakeAnthropic.start();
    const tmp = await makeTempDir('aq-chat-e2e-');
    cleanup = tmp.cleanup;
    const config = loadConfig({
      AQ_HOME: tmp.dir,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      ANTHROPIC_API_KEY: 'sk-fake',
      ANTHROPIC_BASE_URL: model.url,
      AQ_CHAT_MODEL: 'fake-model-1',
    });
    started = await startApp(config, { port: 0, host: '127.0.0.1', logLevel: LogLevel.ERROR, clientOptions: { retryConfig: { retries: 0 } }, daemon: false });
    const server = (started.app as unknown as { receiver: { server: { address(): { port: number } } } }).receiver.server;
    appUrl = `http://127.0.0.1:${server.address().port}`;
    await started.runtime.handler.execute('create_project', { name: 'web' });
    await started.runtime.handler.execute('set_project_channel', { project_id: 'web', channel_id: 'CPROJ' });
  });
  afterEach(async () => {
    await started.stop();
    await slack.close();
    await model.close();
    await cleanup();
  });

  it('creates a task in the channel project and answers in the thread, once per event id', async () => {
    model.enqueue(
      { toolUses: [{ name: 'create_task', input: { title: 'Add dark mode', description: 'Add a dark theme toggle to the settings page.' } }] },
      (request) => {
        const result = JSON.parse(String(model.toolResultsIn(request)[0].content));
        return { text: `Queued task \`${result.created}\` in web.` };
      },
    );
    const body = mentionEnvelope('Ev1', '<@UBOT> please add dark mode', '1700000000.000100');
    const first = await FakeSlack.postToApp(appUrl, body, { signingSecret: SECRET, contentType: 'json' });
    expect(first.status).toBe(200);
    const retry = await FakeSlack.postToApp(appUrl, body, { signingSecret: SECRET, contentType: 'json', headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    expect(retry.status).toBe(200);

    await slack.waitFor(() => slack.callsTo('chat.update').some((c) => String(c.args.text).startsWith('Queued task')), 'the final reply');
    const tasks = (await started.runtime.handler.execute('list_tasks', { project_id: 'web' })) as { tasks: Array<{ id: string; title: string }> };
    expect(tasks.tasks).toEqual([expect.objectContaining({ title: 'Add dark mode' })]);
    const placeholders = slack.callsTo('chat.postMessage');
    expect(placeholders).toHaveLength(1);
    expect(placeholders[0].args).toMatchObject({ channel: 'CPROJ', thread_ts: '1700000000.000100', text: ':thought_balloon: Thinking…' });
    const final = slack.callsTo('chat.update').at(-1)!;
    expect(final.args.text).toBe(`Queued task \`${tasks.tasks[0].id}\` in web.`);
    const rendered = JSON.stringify(final.args.blocks);
    expect(rendered).toContain('*Add dark mode*');
    expect(rendered).toContain('aq_restart_task');
    expect(model.requests[0].body.messages?.[0]).toEqual({ role: 'user', content: '[from <@U1>] please add dark mode' });
  });

  it('sends free-text /aq to the chat agent', async () => {
    model.enqueue({ text: 'Nothing is running right now.' });
    const response = await FakeSlack.postToApp(appUrl, slashCommand({ text: 'what is running?', channelId: 'CPROJ', responseUrl: slack.responseUrl() }), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    await slack.waitFor(() => slack.responses.length === 1, 'the chat answer');
    expect(slack.responses[0].body).toMatchObject({ response_type: 'ephemeral', text: 'Nothing is running right now.' });
  });
});
