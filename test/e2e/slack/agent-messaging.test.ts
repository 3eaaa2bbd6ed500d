import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { appHomeOpened, eventCallback } from '../../support/slack-payloads';

/**
 * Slack's agent messaging events through the real Bolt app: the DM opened (app_home_opened with
 * tab "messages") and app_context_changed are taken and left without a Slack call; the Home tab
 * still gets its dashboard.
 */
describe("Slack's agent messaging events", () => {
  let app: TestApp;
  let slack: FakeSlack;

  beforeEach(async () => {
    app = await startTestApp();
    slack = app.slack;
  });
  afterEach(() => app.stop());

  const post = (event: Record<string, unknown>) =>
    FakeSlack.postToApp(app.url, JSON.stringify(eventCallback(event)), { signingSecret: app.signingSecret, contentType: 'json' });

  it('leaves the Messages tab and the viewed context alone, and publishes the Home tab', async () => {
    expect((await post(appHomeOpened({ userId: 'U1', tab: 'messages', channelId: 'D1' }))).status).toBe(200);
    const context = {
      type: 'app_context_changed',
      channel: 'D1',
      user: 'U1',
      context: { entities: [{ type: 'slack#/types/channel_id', value: 'CPROJ', team_id: 'T1' }] },
      event_ts: '1700000000.000300',
    };
    expect((await post(context)).status).toBe(200);
    expect((await post(appHomeOpened({ userId: 'U2', tab: 'home', channelId: 'D2' }))).status).toBe(200);
    const home = await slack.waitForCall('views.publish');
    expect(home.args.user_id).toBe('U2');
    expect(slack.callsTo('views.publish')).toHaveLength(1);
    expect(slack.calls.filter((c) => c.method !== 'views.publish' && c.method !== 'auth.test')).toEqual([]);
  });
});
