import { WebClient, ErrorCode, LogLevel } from '@slack/web-api';
import { FakeSlack, httpReply } from '../../support/fake-slack';

/** The real @slack/web-api WebClient against the fake Web API. */
describe('FakeSlack Web API with the real WebClient', () => {
  let slack: FakeSlack;
  let client: WebClient;

  beforeEach(async () => {
    slack = await FakeSlack.start();
    client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterEach(() => slack.close());

  it('records chat.postMessage with blocks parsed back into objects, and the bearer token', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*hi*' } }];
    const first = await client.chat.postMessage({ channel: 'C1', text: 'hi', blocks });
    const second = await client.chat.postMessage({ channel: 'C1', text: 'again', thread_ts: first.ts });

    expect(first).toMatchObject({ ok: true, channel: 'C1', message: { text: 'hi', blocks } });
    expect(first.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(Number(second.ts)).toBeGreaterThan(Number(first.ts));
    const [call] = slack.callsTo('chat.postMessage');
    expect(call.args).toMatchObject({ channel: 'C1', text: 'hi', blocks });
    expect(call.authorization).toBe('Bearer xoxb-test');
    expect(call.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(typeof call.at).toBe('number');
  });

  it('answers the default methods sensibly', async () => {
    expect(await client.auth.test()).toMatchObject({ ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'aq' });
    const created = await client.conversations.create({ name: 'aq-demo' });
    expect(created.channel).toMatchObject({ id: expect.stringMatching(/^C\d+$/), name: 'aq-demo' });
    const published = await client.views.publish({ user_id: 'U1', view: { type: 'home', blocks: [] } });
    expect(published.view).toMatchObject({ id: expect.any(String), type: 'home' });
    expect(slack.callsTo('views.publish')[0].args.view).toEqual({ type: 'home', blocks: [] });
    expect((await client.users.info({ user: 'U7' })).user).toMatchObject({ id: 'U7' });
    expect(await client.conversations.replies({ channel: 'C1', ts: '1.2' })).toMatchObject({ ok: true, messages: [] });
    expect(await client.apiCall('some.unknownMethod', { a: 1 })).toMatchObject({ ok: true });
  });

  it('a scripted { ok: false } makes the client throw a platform error', async () => {
    slack.setResponse('conversations.create', { ok: false, error: 'name_taken' });
    await expect(client.conversations.create({ name: 'taken' })).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'name_taken' },
    });
    expect(ErrorCode.PlatformError).toBe('slack_webapi_platform_error');
  });

  it('handlers see the arguments; `times` falls back to the default answer', async () => {
    slack.setResponse('conversations.create', (args) => ({ ok: false, error: `taken:${String(args.name)}` }), { times: 1 });
    await expect(client.conversations.create({ name: 'a' })).rejects.toMatchObject({ data: { error: 'taken:a' } });
    await expect(client.conversations.create({ name: 'a-2' })).resolves.toMatchObject({ ok: true, channel: { name: 'a-2' } });
  });

  it('a 429 with retry-after: rejected when rejectRateLimitedCalls, waited out and retried otherwise', async () => {
    slack.setResponse('chat.postMessage', httpReply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '0' }), { times: 1 });
    const strict = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
    await expect(strict.chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 0,
    });

    slack.setResponse('chat.postMessage', httpReply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '0' }), { times: 1 });
    const patient = new WebClient('xoxb-test', {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 1, factor: 1, minTimeout: 0, maxTimeout: 0 },
      logLevel: LogLevel.ERROR,
    });
    await expect(patient.chat.postMessage({ channel: 'C1', text: 'y' })).resolves.toMatchObject({ ok: true });
    expect(slack.callsTo('chat.postMessage').map((c) => c.args.text)).toEqual(['x', 'y', 'y']);
  });

  it('waitForCall finds later calls, and times out with a list of what it saw', async () => {
    setTimeout(() => void client.chat.update({ channel: 'C1', ts: '1.1', text: 'done' }), 30);
    const call = await slack.waitForCall('chat.update', (c) => c.args.text === 'done', 2_000);
    expect(call.args.ts).toBe('1.1');

    await expect(slack.waitForCall('reactions.add', undefined, 100)).rejects.toThrow(
      /reactions\.add[\s\S]*chat\.update \(channel="C1", text="done", ts="1\.1"\)/,
    );
    slack.clearCalls();
    expect(slack.calls).toHaveLength(0);
  });

  it('the response_url sink records JSON posts', async () => {
    const url = slack.responseUrl('abc');
    expect(url).toBe(`${slack.url}/response/abc`);
    setTimeout(
      () =>
        void fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'later', response_type: 'ephemeral' }),
        }),
      20,
    );
    const response = await slack.waitForResponse((r) => r.id === 'abc', 2_000);
    expect(response.body).toEqual({ text: 'later', response_type: 'ephemeral' });
  });
});
