import { MAX_CHAT_MESSAGE_CHARS } from '../../../src/chat/service';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback } from '../../support/slack-payloads';

/** The text of the last user message of a model request, joined. */
function lastUserText(request: { body: { messages?: Array<{ role: string; content: unknown }> } }): string {
  const content = request.body.messages?.at(-1)?.content;
  if (typeof content === 'string') return content;
  return (content as Array<{ type: string; text?: string }>).map((b) => b.text ?? '').join('\n');
}

/** A 1 MB mention reaches the model cut to the documented limit, with a note it and the person see. */
describe('a very long mention', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let model: FakeAnthropic;

  beforeEach(async () => {
    model = await FakeAnthropic.start();
    app = await startTestApp({ ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: model.url, AQ_CHAT_MODEL: 'fake-model-1' });
    ({ slack } = app);
  });
  afterEach(async () => {
    await app.stop();
    await model.close();
  });

  it('is cut before the model sees it, and the reply says so', async () => {
    const text = `<@UBOT> summarise ${'y'.repeat(1024 * 1024)}`;
    const ask = slack.userSays({ channel: 'C1', user: 'U7', text });
    model.enqueue({ text: 'A lot of y.' });
    const delivered = await FakeSlack.postToApp(app.url, JSON.stringify(eventCallback({ ...ask, type: 'app_mention', channel: 'C1' })), {
      signingSecret: app.signingSecret,
      contentType: 'json',
    });
    expect(delivered.status).toBe(200);
    await slack.waitFor(() => model.requests.length > 0, 'the model request', 30_000);
    const sent = lastUserText(model.requests[0]);
    expect(sent.length).toBeLessThan(MAX_CHAT_MESSAGE_CHARS + 500);
    expect(sent).toMatch(/\[The message was cut here: [\d,]+ more characters were left out; the limit is 12,000\.\]$/);
    expect(JSON.stringify(model.requests[0].body).length).toBeLessThan(200_000);
    await slack.waitFor(
      () => JSON.stringify(slack.calls.map((c) => c.args)).includes('Your message was longer than 12,000 characters'),
      'the note in the reply',
      30_000,
    );
    expect(JSON.stringify(slack.calls.map((c) => c.args))).toContain('A lot of y.');
  });
});
