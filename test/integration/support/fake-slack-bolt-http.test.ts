import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { FakeSlack } from '../../support/fake-slack';
import {
  appHomeOpened,
  appMention,
  blockActions,
  directMessage,
  eventCallback,
  interactionBody,
  slashCommand,
  viewSubmission,
} from '../../support/slack-payloads';

const SECRET = 'fake-signing-secret';

/** The real Bolt App (HTTP receiver) against the fake Web API, driven by signed requests. */
describe('FakeSlack with a real Bolt app in HTTP mode', () => {
  let slack: FakeSlack;
  let app: App;
  let appUrl: string;

  beforeAll(async () => {
    slack = await FakeSlack.start();
    app = new App({
      token: 'xoxb-test',
      signingSecret: SECRET,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command('/aq', async ({ command, ack, respond }) => {
      await ack({ response_type: 'ephemeral', text: `ack: ${command.text}` });
      await respond({ response_type: 'ephemeral', text: `done: ${command.text}` });
    });
    app.event('app_mention', async ({ event, say }) => {
      await say({ text: `heard: ${event.text}`, thread_ts: event.ts });
    });
    app.message(async ({ message, say }) => {
      if (message.subtype === undefined && message.channel_type === 'im') await say(`dm: ${message.text}`);
    });
    app.event('app_home_opened', async ({ event, client }) => {
      await client.views.publish({
        user_id: event.user,
        view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'home' } }] },
      });
    });
    app.action('approve_btn', async ({ ack, body, respond }) => {
      await ack();
      if (body.type === 'block_actions')
        await respond({ replace_original: true, text: `approved ${(body.actions[0] as { value: string }).value}` });
    });
    app.view('new_task', async ({ ack, view }) => {
      await ack({ response_action: 'errors', errors: { title: `got ${view.state.values.title.title_input.value}` } });
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await slack.waitForCall('auth.test');
  });
  afterAll(async () => {
    await app.stop();
    await slack.close();
  });
  beforeEach(() => {
    slack.clearCalls();
    slack.clearResponses();
  });

  it('a signed slash command is acked with the ack payload and respond() reaches the response sink', async () => {
    const res = await slack.postToApp(appUrl, slashCommand({ text: 'run tests', responseUrl: slack.responseUrl('cmd') }), {
      signingSecret: SECRET,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ response_type: 'ephemeral', text: 'ack: run tests' });
    const response = await slack.waitForResponse((r) => r.id === 'cmd');
    expect(response.body).toMatchObject({ text: 'done: run tests' });
    expect(response.headers['content-type']).toContain('application/json');
  });

  it('a wrong signature, or a stale timestamp, gets 401', async () => {
    const body = slashCommand({ text: 'x', responseUrl: slack.responseUrl() });
    expect((await slack.postToApp(appUrl, body, { signingSecret: SECRET, badSignature: true })).status).toBe(401);
    expect((await slack.postToApp(appUrl, body, { signingSecret: SECRET, timestampOffset: -600 })).status).toBe(401);
    expect(slack.responses).toHaveLength(0);
  });

  it('an app_mention event_callback → say → chat.postMessage in the thread', async () => {
    const mention = appMention({ text: '<@UBOT> hello', channelId: 'C9', ts: '1700000001.000001' });
    const res = await FakeSlack.postToApp(appUrl, eventCallback(mention, { eventId: 'Ev1' }), {
      signingSecret: SECRET,
      contentType: 'json',
    });
    expect(res.status).toBe(200);
    const call = await slack.waitForCall('chat.postMessage');
    expect(call.args).toMatchObject({ channel: 'C9', text: 'heard: <@UBOT> hello', thread_ts: '1700000001.000001', team_id: 'T1' });
  });

  it('a direct message (channel_type im) reaches app.message', async () => {
    const res = await slack.postToApp(appUrl, eventCallback(directMessage({ text: 'hi there', channelId: 'D5' })), {
      signingSecret: SECRET,
      contentType: 'json',
    });
    expect(res.status).toBe(200);
    expect((await slack.waitForCall('chat.postMessage')).args).toMatchObject({ channel: 'D5', text: 'dm: hi there' });
  });

  it('app_home_opened → views.publish', async () => {
    const res = await slack.postToApp(appUrl, eventCallback(appHomeOpened({ userId: 'U3' })), {
      signingSecret: SECRET,
      contentType: 'json',
    });
    expect(res.status).toBe(200);
    const call = await slack.waitForCall('views.publish');
    expect(call.args).toMatchObject({ user_id: 'U3', view: { type: 'home', blocks: [{ type: 'section' }] } });
  });

  it('a block_actions button click → action listener → respond', async () => {
    const payload = blockActions({ actionId: 'approve_btn', value: 'task-7', responseUrl: slack.responseUrl('btn') });
    const res = await slack.postToApp(appUrl, interactionBody(payload), { signingSecret: SECRET });
    expect(res.status).toBe(200);
    expect((await slack.waitForResponse((r) => r.id === 'btn')).body).toMatchObject({ replace_original: true, text: 'approved task-7' });
  });

  it('a view_submission is acked with the response_action body', async () => {
    const payload = viewSubmission({
      callbackId: 'new_task',
      values: { title: { title_input: { type: 'plain_text_input', value: 'Fix it' } } },
    });
    const res = await slack.postToApp(appUrl, { payload }, { signingSecret: SECRET });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ response_action: 'errors', errors: { title: 'got Fix it' } });
  });

  it('url_verification is answered by the receiver', async () => {
    const res = await slack.postToApp(
      appUrl,
      { type: 'url_verification', token: 't', challenge: 'chal-1' },
      { signingSecret: SECRET, contentType: 'json' },
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ challenge: 'chal-1' });
  });
});
