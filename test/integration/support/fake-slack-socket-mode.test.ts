import { App, LogLevel } from '@slack/bolt';
import { FakeSlack } from '../../support/fake-slack';
import { appMention, blockActions, eventCallback, slashCommandFields } from '../../support/slack-payloads';

/** The real Bolt App in Socket Mode, connected through the fake's apps.connections.open + WebSocket. */
describe('FakeSlack Socket Mode with a real Bolt app', () => {
  let slack: FakeSlack;
  let app: App;

  beforeAll(async () => {
    slack = await FakeSlack.start({ pingIntervalMs: 1_000 });
    app = new App({
      token: 'xoxb-test',
      appToken: 'xapp-test',
      socketMode: true,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
    });
    app.event('app_mention', async ({ event, say }) => {
      await say({ text: `heard: ${event.text}`, thread_ts: event.ts });
    });
    app.command('/aq', async ({ command, ack, respond }) => {
      await ack({ text: `ack ${command.text}` });
      await respond({ text: `done ${command.text}` });
    });
    app.action('approve_btn', async ({ ack }) => {
      await ack();
    });
    await app.start();
    await slack.waitForSocketConnection();
  });
  afterAll(async () => {
    await app.stop();
    await slack.close();
  });

  it('connected with the app token through apps.connections.open', () => {
    const [open] = slack.callsTo('apps.connections.open');
    expect(open.authorization).toBe('Bearer xapp-test');
    expect(slack.socketMode.isConnected()).toBe(true);
  });

  it('an events_api envelope is acked with its envelope_id and the listener runs', async () => {
    const payload = eventCallback(appMention({ text: '<@UBOT> ping', channelId: 'C2', ts: '1700000002.000001' }));
    const { ack, envelopeId, elapsedMs } = await slack.sendEnvelope('events_api', payload);
    expect(ack.envelope_id).toBe(envelopeId);
    expect(elapsedMs).toBeLessThan(2_000);
    const call = await slack.waitForCall('chat.postMessage');
    expect(call.args).toMatchObject({ channel: 'C2', text: 'heard: <@UBOT> ping', thread_ts: '1700000002.000001' });
    expect(call.authorization).toBe('Bearer xoxb-test');
  });

  it('a slash_commands envelope is acked with the ack payload (accepts_response_payload) and respond() reaches the sink', async () => {
    const { ack } = await slack.sendEnvelope('slash_commands', slashCommandFields({ text: 'go', responseUrl: slack.responseUrl('sock') }), {
      envelopeId: 'env-cmd',
    });
    expect(ack).toEqual({ envelope_id: 'env-cmd', payload: { text: 'ack go' } });
    expect((await slack.waitForResponse((r) => r.id === 'sock')).body).toMatchObject({ text: 'done go' });
  });

  it('an interactive envelope is acked', async () => {
    const { ack } = await slack.sendEnvelope(
      'interactive',
      blockActions({ actionId: 'approve_btn', value: 'v', responseUrl: slack.responseUrl('i') }),
    );
    expect(ack.envelope_id).toMatch(/^env-/);
  });

  it('the connection survives server pings', async () => {
    await slack.socketMode.waitForPongs(slack.socketMode.pongs + 2);
    expect(slack.socketMode.isConnected()).toBe(true);
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
  });
});
