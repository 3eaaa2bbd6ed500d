import { AnthropicChatProvider } from '../../../src/chat/anthropic';
import { FakeAnthropic } from '../../support/fake-anthropic';

describe('what the app sends the model holds no half characters', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await FakeAnthropic.start();
  });
  afterAll(() => fake.close());

  it('is refused by the loopback API as by the real one, and the provider mends text before sending it', async () => {
    const half = '🚀'.slice(0, 1);
    const raw = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-fake', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: `cut ${half}` }] }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.text()).toContain('no low surrogate in string');

    const provider = new AnthropicChatProvider({ apiKey: 'sk-fake', baseUrl: fake.url, model: 'm', maxRetries: 0 });
    fake.enqueue({ text: 'fine' });
    const answer = await provider.createMessage({
      system: `system ${half}`,
      maxTokens: 10,
      messages: [
        { role: 'user', content: `question ${half}` },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_task', input: { task_id: `t-${half}` } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: `result ${half}🚀` }] },
      ],
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'fine' }]);
    const sent = JSON.stringify(fake.requests.at(-1)!.body);
    expect(sent).toContain('question \uFFFD');
    expect(sent).toContain('result \uFFFD🚀');
    expect(sent).toContain('t-\uFFFD');
  });
});
