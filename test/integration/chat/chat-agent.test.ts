import { z } from 'zod';
import { ALL_COMMANDS } from '../../../src/commands';
import { MAX_TOOL_ROUNDS } from '../../../src/chat/agent';
import { KEEP_MESSAGES, MAX_MESSAGES } from '../../../src/chat/memory';
import { createChatService } from '../../../src/chat/chat-service';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

const actor = { source: 'slack' as const, userId: 'U1', channelId: 'C1' };

describe('chat agent with the real Anthropic SDK against a loopback Messages API', () => {
  let fake: FakeAnthropic;
  let rt: TestRuntime;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    rt = await makeTestRuntime({ ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: fake.url, AQ_CHAT_MODEL: 'fake-model-1' });
    await rt.exec('create_project', { name: 'demo' });
  });
  afterEach(async () => {
    await rt.cleanup();
    await fake.close();
  });

  const ask = (text: string, conversationId = 'C1:1') => rt.chat!.reply({ conversationId, text, actor, projectId: 'demo' });

  it('runs one tool call through execute, returns its result and replies in words', async () => {
    fake.enqueue(
      { toolUses: [{ name: 'create_task', input: { title: 'Fix login', description: 'The login form crashes on submit.' }, id: 'toolu_a' }] },
      { text: 'Queued task for the login fix.' },
    );
    const reply = await ask('please fix the login form');
    expect(reply.text).toBe('Queued task for the login fix.');
    expect(reply.runs).toEqual([{ command: 'create_task', args: expect.any(Object), result: expect.objectContaining({ project_id: 'demo', title: 'Fix login' }) }]);
    expect(((await rt.exec('list_tasks', { project_id: 'demo' })) as { total: number }).total).toBe(1);

    const [first, second] = fake.requests;
    expect(first.headers.authorization).toBe('Bearer sk-fake');
    expect(first.body.model).toBe('fake-model-1');
    const tools = first.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>;
    const expected = ALL_COMMANDS.filter((c) => c.modelAccess !== 'excluded');
    expect(tools.map((t) => t.name)).toEqual(expected.map((c) => c.name));
    expect(tools.map((t) => t.name)).not.toContain('restart_daemon');
    const createTask = tools.find((t) => t.name === 'create_task')!;
    const { $schema: _s, ...schema } = z.toJSONSchema(ALL_COMMANDS.find((c) => c.name === 'create_task')!.input) as Record<string, unknown>;
    expect(createTask.input_schema).toEqual(schema);
    expect(String((first.body.system as Array<{ text: string }>)[0].text)).toContain('project `demo`');
    expect(fake.toolResultsIn(second)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_a', content: expect.stringContaining('"created"') }]);
  });

  it('runs parallel tool calls together and returns their results in order', async () => {
    fake.enqueue(
      { toolUses: [{ name: 'create_project', input: { name: 'second' }, id: 't1' }, { name: 'list_projects', input: {}, id: 't2' }] },
      { text: 'Done both.' },
    );
    await ask('make a project called second and list them');
    const results = fake.toolResultsIn(fake.requests[1]);
    expect(results.map((r) => r.tool_use_id)).toEqual(['t1', 't2']);
    expect(JSON.parse(String(results[0].content))).toMatchObject({ created: 'second' });
  });

  it('feeds command errors and invalid input back to the model as error results', async () => {
    fake.enqueue(
      { toolUses: [{ name: 'get_task', input: { task_id: 'ghost' }, id: 'e1' }, { name: 'create_task', input: { title: 42 }, id: 'e2' }] },
      { text: 'That task does not exist.' },
    );
    const reply = await ask('show task ghost');
    expect(reply.text).toBe('That task does not exist.');
    const [missing, invalid] = fake.toolResultsIn(fake.requests[1]);
    expect(missing).toEqual({ type: 'tool_result', tool_use_id: 'e1', content: JSON.stringify({ error: "Task 'ghost' not found." }), is_error: true });
    expect(JSON.parse(String(invalid.content)).error).toMatch(/^Field 'title' must be text/);
  });

  it('holds commands that need confirmation until a person confirms or cancels', async () => {
    fake.enqueue({ toolUses: [{ name: 'delete_project', input: { project_id: 'demo' } }] }, { text: 'Deleting demo needs your confirmation.' });
    const reply = await ask('delete the demo project');
    expect(reply.pendingConfirmations).toEqual([{ id: expect.any(String), command: 'delete_project', args: { project_id: 'demo' }, summary: 'Run delete_project (project_id=demo)' }]);
    expect(await rt.db.projects.get('demo')).not.toBeNull();
    expect(JSON.parse(String(fake.toolResultsIn(fake.requests[1])[0].content))).toMatchObject({ status: 'awaiting_confirmation' });

    fake.enqueue({ text: 'The demo project is deleted.' });
    const confirmed = await rt.chat!.confirm(reply.pendingConfirmations[0].id, actor);
    expect(confirmed.text).toBe('The demo project is deleted.');
    expect(confirmed.runs[0]).toMatchObject({ command: 'delete_project', result: { deleted: 'demo' } });
    expect(await rt.db.projects.get('demo')).toBeNull();
    expect((await rt.chat!.confirm(reply.pendingConfirmations[0].id, actor)).text).toContain('already confirmed');

    await rt.exec('create_project', { name: 'keep' });
    fake.enqueue({ toolUses: [{ name: 'delete_project', input: { project_id: 'keep' } }] }, { text: 'Needs confirmation.' });
    const second = await ask('delete keep');
    expect((await rt.chat!.cancel(second.pendingConfirmations[0].id, actor)).text).toBe('Cancelled: Run delete_project (project_id=keep). Nothing was changed.');
    expect(await rt.db.projects.get('keep')).not.toBeNull();
  });

  it('stops at the round bound with an honest summary', async () => {
    for (let i = 0; i < MAX_TOOL_ROUNDS; i++) fake.enqueue({ toolUses: [{ name: 'get_status', input: {} }] });
    const reply = await ask('loop forever');
    expect(fake.requests).toHaveLength(MAX_TOOL_ROUNDS);
    expect(reply.text).toMatch(new RegExp(`^I stopped after ${MAX_TOOL_ROUNDS} rounds`));
  });

  it('retries a 429 and succeeds; a persistent 500 becomes a short honest reply', async () => {
    fake.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: 0 } }, { text: 'Hello!' });
    expect((await ask('hi')).text).toBe('Hello!');
    for (let i = 0; i < 3; i++) fake.enqueue({ error: { status: 500, type: 'api_error', message: 'boom' } });
    const reply = await ask('hi again');
    expect(reply.text).toBe("I couldn't finish because the model service failed (HTTP 500). Nothing was changed. Please try again in a moment.");
    fake.enqueue({ text: 'Back.' });
    expect((await ask('still there?')).text).toBe('Back.');
    const lastMessages = fake.lastRequest().body.messages ?? [];
    expect(lastMessages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('writes a plain-words reply when the model ends without text', async () => {
    fake.enqueue({ toolUses: [{ name: 'pause_project', input: { project_id: 'demo' } }] }, { text: '' });
    expect((await ask('pause demo')).text).toBe('Paused demo.');
  });

  it('remembers conversations across a restart, folds old turns into a summary, and records chat tokens', async () => {
    fake.enqueue({ text: 'Noted: the demo project is for the website.' });
    await ask('remember that demo is the website', 'C1:memory');
    const restarted = createChatService({ db: rt.db, config: rt.config, provider: rt.chatProvider!, createHandler: () => rt.createHandler() });
    fake.enqueue({ text: 'It is the website.' });
    await restarted.reply({ conversationId: 'C1:memory', text: 'what is demo for?', actor });
    expect(fake.lastRequest().body.messages?.[0]).toEqual({ role: 'user', content: 'remember that demo is the website' });

    fake.enqueue((request) => (request.body.tools ? { text: 'ok' } : { text: 'SUMMARY: demo is the website.' }));
    for (let i = 0; i < MAX_MESSAGES; i++) fake.enqueue((request) => (request.body.tools ? { text: `answer ${i}` } : { text: 'SUMMARY: demo is the website.' }));
    for (let i = 0; i < MAX_MESSAGES / 2; i++) await restarted.reply({ conversationId: 'C1:memory', text: `message ${i}`, actor });
    const stored = await rt.db.chatThreads.load('C1:memory');
    expect(stored.summary).toBe('SUMMARY: demo is the website.');
    expect(stored.turns.length).toBeLessThanOrEqual(MAX_MESSAGES);
    expect(stored.turns.length).toBeGreaterThanOrEqual(KEEP_MESSAGES - 1);
    expect((stored.turns[0] as { role: string }).role).toBe('user');
    fake.enqueue({ text: 'Still the website.' });
    await restarted.reply({ conversationId: 'C1:memory', text: 'and now?', actor });
    expect(String((fake.lastRequest().body.system as Array<{ text: string }>)[0].text)).toContain('SUMMARY: demo is the website.');

    const usage = (await rt.exec('get_token_usage', { project_id: 'demo' })) as { total: number };
    expect(usage.total).toBeGreaterThan(0);
  });
});
