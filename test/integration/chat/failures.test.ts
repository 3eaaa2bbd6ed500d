import { chatHarness, type ChatHarness } from './setup';

describe('chat agent when the model API fails (real SDK, maxRetries 1)', () => {
  let h: ChatHarness;
  beforeEach(async () => {
    h = await chatHarness();
  });
  afterEach(() => h.cleanup());

  it('retries a 429 (retry-after 0) and answers', async () => {
    h.fake.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: 0 } }, { text: 'Hello!' });
    const reply = await h.ask('hi');
    expect(reply.text).toBe('Hello!');
    expect(h.fake.requests).toHaveLength(2);
    expect(h.fake.requests[1].body).toEqual(h.fake.requests[0].body);
  });

  it('a 429 that outlasts the retries becomes a short honest reply', async () => {
    h.fake.enqueue(...[1, 2].map(() => ({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: 0 } })));
    const reply = await h.ask('hi');
    expect(reply.text).toBe(
      "I couldn't finish because the model is rate limited right now. Nothing was changed. Please try again in a moment.",
    );
    expect(h.fake.requests).toHaveLength(2);
  });

  it('a persistent 500 becomes an honest reply and the conversation stays usable', async () => {
    h.fake.enqueue(...[1, 2].map(() => ({ error: { status: 500, type: 'api_error', message: 'boom' } })));
    const reply = await h.ask('hi');
    expect(reply).toEqual({
      text: "I couldn't finish because the model service failed (HTTP 500). Nothing was changed. Please try again in a moment.",
      runs: [],
      pendingConfirmations: [],
    });
    h.fake.enqueue({ text: 'Back.' });
    expect((await h.ask('still there?')).text).toBe('Back.');
    const messages = h.fake.lastRequest().body.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1].content).toBe(reply.text);
  });

  it('an auth failure is not retried and says to check the key', async () => {
    h.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const reply = await h.ask('hi');
    expect(reply.text).toMatch(/rejected the API key \(check ANTHROPIC_API_KEY\)\. Nothing was changed\./);
    expect(h.fake.requests).toHaveLength(1);
  });

  it('after a command ran, it never claims nothing was changed', async () => {
    h.fake.enqueue(
      { toolUses: [{ id: 'c1', name: 'create_task', input: { title: 'Fix login', description: 'Fix it.' } }] },
      ...[1, 2].map(() => ({ error: { status: 500, type: 'api_error', message: 'boom' } })),
    );
    const reply = await h.ask('queue the login fix');
    const id = String(reply.runs[0].result.created);
    expect(reply.text).toBe(
      `I couldn't finish because the model service failed (HTTP 500). Before that: Created task ${id} (Fix login) in demo. Please try again in a moment.`,
    );
    // The tool exchange is kept, so the model knows next time that the task exists.
    h.fake.enqueue({ text: 'It is queued.' });
    await h.ask('did it work?');
    const messages = h.fake.lastRequest().body.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(h.fake.toolResultsIn({ ...h.fake.lastRequest(), body: { messages: messages.slice(0, 3) } })[0]).toMatchObject({
      tool_use_id: 'c1',
    });
  });

  it('a read-only lookup before a failure still counts as nothing changed', async () => {
    h.fake.enqueue(
      { toolUses: [{ name: 'list_projects', input: {} }] },
      ...[1, 2].map(() => ({ error: { status: 529, type: 'overloaded_error', message: 'busy' } })),
    );
    const reply = await h.ask('list projects');
    expect(reply.text).toBe(
      "I couldn't finish because the model service is overloaded. Nothing was changed. Please try again in a moment.",
    );
  });
});
