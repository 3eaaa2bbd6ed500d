import Anthropic from '@anthropic-ai/sdk';
import { FakeAnthropic, UNSCRIPTED_TEXT } from '../../support/fake-anthropic';

const MODEL = 'fake-model-1';
const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

/** The real @anthropic-ai/sdk client against the fake Messages API. */
describe('FakeAnthropic with the real Anthropic SDK', () => {
  let fake: FakeAnthropic;
  let client: Anthropic;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    client = new Anthropic({ baseURL: fake.url, apiKey: 'x', maxRetries: 0 });
  });
  afterEach(() => fake.close());

  it('non-streaming: a tool_use turn, then the tool_result goes back and a text turn ends it', async () => {
    fake.enqueue(
      {
        text: 'I will check.',
        toolUses: [{ name: 'get_weather', input: { city: 'Paris' } }],
        usage: { input_tokens: 12, output_tokens: 7 },
      },
      { text: '22C and sunny.' },
    );
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 100, tools, messages });
    expect(first).toMatchObject({
      id: 'msg_1',
      role: 'assistant',
      model: MODEL,
      stop_reason: 'tool_use',
      usage: { input_tokens: 12, output_tokens: 7 },
      content: [
        { type: 'text', text: 'I will check.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });

    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '22C' }] },
    );
    const second = await client.messages.create({ model: MODEL, max_tokens: 100, tools, messages });
    expect(second).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: '22C and sunny.' }] });

    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/messages', query: '', body: { model: MODEL } });
    expect(fake.requests[0].body.stream).toBeFalsy();
    expect(fake.requests[0].headers.authorization).toBe('Bearer x');
    expect(fake.toolResultsIn(fake.lastRequest())).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: '22C' }]);
    expect(fake.unscriptedCount).toBe(0);
  });

  it('streaming: split text and input_json deltas rebuild the final message', async () => {
    fake.enqueue({
      text: 'Checking the weather now.',
      toolUses: [{ id: 'toolu_custom', name: 'get_weather', input: { city: 'Lyon', days: [1, 2] } }],
      usage: { input_tokens: 30, output_tokens: 9, cache_read_input_tokens: 4 },
    });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, tools, messages: [{ role: 'user', content: 'Lyon?' }] });
    const texts: string[] = [];
    const jsonParts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    stream.on('inputJson', (partial) => jsonParts.push(partial));
    const final = await stream.finalMessage();
    expect(texts.length).toBeGreaterThanOrEqual(2);
    expect(texts.join('')).toBe('Checking the weather now.');
    expect(jsonParts.length).toBeGreaterThanOrEqual(2);
    expect(final).toMatchObject({
      stop_reason: 'tool_use',
      usage: { input_tokens: 30, output_tokens: 9, cache_read_input_tokens: 4 },
      content: [
        { type: 'text', text: 'Checking the weather now.' },
        { type: 'tool_use', id: 'toolu_custom', name: 'get_weather', input: { city: 'Lyon', days: [1, 2] } },
      ],
    });
    expect(fake.lastRequest().body.stream).toBe(true);
  });

  it('a 429 with retry-after 0 is retried when maxRetries is 1', async () => {
    fake.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: 0 } }, { text: 'ok now' });
    const retrying = new Anthropic({ baseURL: fake.url, apiKey: 'x', maxRetries: 1 });
    const started = Date.now();
    const reply = await retrying.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.content).toEqual([{ type: 'text', text: 'ok now' }]);
    expect(fake.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a 500 surfaces as an APIError with status 500 and the message', async () => {
    fake.enqueue({ error: { status: 500, type: 'api_error', message: 'fake 500' } });
    const error = await client.messages
      .create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(500);
    expect(String((error as Error).message)).toContain('fake 500');
  });

  it('a 401 is an AuthenticationError', async () => {
    fake.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    await expect(
      client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('dynamic turns see the request; an empty script answers a default text and counts it', async () => {
    fake.enqueue((request) => ({ text: `you said ${JSON.stringify(request.body.messages?.[0]?.content)}` }));
    const dynamic = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'abc' }] });
    expect(dynamic.content).toEqual([{ type: 'text', text: 'you said "abc"' }]);

    const unscripted = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'more' }] });
    expect(unscripted.content).toEqual([{ type: 'text', text: UNSCRIPTED_TEXT }]);
    expect(fake.unscriptedCount).toBe(1);
    await expect(fake.waitForRequests(2, 100)).resolves.toHaveLength(2);
    await expect(fake.waitForRequests(3, 100)).rejects.toThrow(/waited 100 ms for 3 request/);
  });

  it('consumeOnlyWithTools: requests without tools do not use up the script', async () => {
    const picky = await FakeAnthropic.start({ consumeOnlyWithTools: true, untooledText: 'A title' });
    try {
      const c = new Anthropic({ baseURL: picky.url, apiKey: 'x', maxRetries: 0 });
      picky.enqueue({ text: 'scripted' });
      const title = await c.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'name this' }] });
      expect(title.content).toEqual([{ type: 'text', text: 'A title' }]);
      const real = await c.messages.create({ model: MODEL, max_tokens: 10, tools, messages: [{ role: 'user', content: 'go' }] });
      expect(real.content).toEqual([{ type: 'text', text: 'scripted' }]);
      expect(picky.pending).toBe(0);
    } finally {
      await picky.close();
    }
  });

  it('answers HEAD / and HEAD /api/hello, routes ?beta=true by path, and 404s other paths', async () => {
    expect((await fetch(`${fake.url}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${fake.url}/`, { method: 'HEAD' })).status).toBe(200);
    const missing = await fetch(`${fake.url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    fake.enqueue({ text: 'beta ok' });
    const beta = await fetch(`${fake.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [] }),
    });
    expect(await beta.json()).toMatchObject({ content: [{ type: 'text', text: 'beta ok' }] });
    expect(fake.lastRequest()).toMatchObject({ path: '/v1/messages', query: '?beta=true' });
  });
});
