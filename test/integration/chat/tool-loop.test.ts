import { z } from 'zod';
import { MAX_TOOL_ROUNDS } from '../../../src/chat/agent';
import { ALL_COMMANDS } from '../../../src/commands';
import { modelAccessOf } from '../../../src/commands/catalog';
import { chatHarness, MODEL, systemText, type ChatHarness } from './setup';

interface SentTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: unknown;
}

describe('chat tool-use loop: real Anthropic SDK against the loopback Messages API', () => {
  let h: ChatHarness;
  beforeEach(async () => {
    h = await chatHarness();
  });
  afterEach(() => h.cleanup());

  it('runs one tool call through execute, answers its tool_use id, and replies in words', async () => {
    h.fake.enqueue(
      {
        toolUses: [{ id: 'toolu_a', name: 'create_task', input: { title: 'Fix login', description: 'The login form crashes on submit.' } }],
      },
      { text: 'Queued the login fix as a task.' },
    );
    const progress: string[] = [];
    const reply = await h.ask('please fix the login form', { onProgress: (s) => void progress.push(s) });

    expect(reply.text).toBe('Queued the login fix as a task.');
    expect(reply.pendingConfirmations).toEqual([]);
    expect(reply.runs).toEqual([
      {
        command: 'create_task',
        args: { title: 'Fix login', description: 'The login form crashes on submit.' },
        result: expect.objectContaining({ project_id: 'demo', title: 'Fix login' }),
      },
    ]);
    const created = String(reply.runs[0].result.created);
    expect(await h.rt.db.tasks.get(created)).toMatchObject({ projectId: 'demo', title: 'Fix login' });
    expect(progress).toEqual(['Thinking…', 'Running create_task…', 'Thinking about the results…']);

    expect(h.fake.requests).toHaveLength(2);
    const [first, second] = h.fake.requests;
    expect(first.headers.authorization).toBe('Bearer sk-fake');
    expect(first.body.model).toBe(MODEL);
    expect(first.body.messages).toEqual([{ role: 'user', content: 'please fix the login form' }]);
    expect(second.body.messages?.[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_a',
          name: 'create_task',
          input: { title: 'Fix login', description: 'The login form crashes on submit.' },
        },
      ],
    });
    expect(h.fake.toolResultsIn(second)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: JSON.stringify(reply.runs[0].result) },
    ]);
  });

  it('cuts a long tool result at a whole character, so the next request is not refused', async () => {
    // Two tasks whose descriptions are 15,500 emoji, one a character longer: the 30,000-character
    // cut of one of their get_task results falls inside an emoji.
    const ids: string[] = [];
    for (const lead of ['', 'x']) {
      const made = await h.rt.exec('create_task', { project_id: 'demo', title: 'Rockets', description: `${lead}${'🚀'.repeat(15_500)}` });
      ids.push(String(made.created));
    }
    h.fake.enqueue(
      { toolUses: ids.map((id, i) => ({ id: `toolu_${i}`, name: 'get_task', input: { task_id: id } })) },
      { text: 'Two tasks full of rockets.' },
    );
    const reply = await h.ask('what are those tasks?');
    expect(reply.text).toBe('Two tasks full of rockets.');
    const results = h.fake.toolResultsIn(h.fake.requests[1]);
    expect(results.map((r) => String(r.content))).toEqual([
      expect.stringMatching(/🚀… \(cut: \d+ more characters; ask for less/),
      expect.stringMatching(/🚀… \(cut: \d+ more characters; ask for less/),
    ]);
  });

  it('offers exactly the catalog as tools (minus excluded commands), each schema generated from its zod input', async () => {
    h.fake.enqueue({ text: 'Hello.' });
    await h.ask('hi');
    const body = h.fake.requests[0].body;
    const tools = body.tools as SentTool[];
    const offered = ALL_COMMANDS.filter((c) => modelAccessOf(c) !== 'excluded');
    expect(tools.map((t) => t.name)).toEqual(offered.map((c) => c.name));
    for (const excluded of ALL_COMMANDS.filter((c) => modelAccessOf(c) === 'excluded'))
      expect(tools.map((t) => t.name)).not.toContain(excluded.name);
    expect(tools.map((t) => t.name)).not.toContain('restart_daemon');
    for (const command of offered) {
      const tool = tools.find((t) => t.name === command.name)!;
      const { $schema: _drop, ...schema } = z.toJSONSchema(command.input) as Record<string, unknown>;
      expect(tool.input_schema).toEqual(schema);
      expect(tool.description.startsWith(command.description)).toBe(true);
      if (modelAccessOf(command) === 'confirm') expect(tool.description).toMatch(/confirm/i);
    }
    // Prompt caching: the last tool and the system block are cache breakpoints.
    expect(tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(tools.slice(0, -1).every((t) => t.cache_control === undefined)).toBe(true);
    expect((body.system as Array<{ cache_control?: unknown }>)[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(systemText(body)).toContain(
      'This conversation is in the channel of project `demo`. Use it as project_id unless the person names another project.',
    );
    expect(systemText(body)).toContain('- `demo` demo (workspace ');
  });

  it('runs parallel tool calls of one turn together and returns their results in call order', async () => {
    h.fake.enqueue(
      {
        toolUses: [
          { id: 't1', name: 'create_project', input: { name: 'second' } },
          { id: 't2', name: 'create_task', input: { title: 'A', description: 'Do A.' } },
          { id: 't3', name: 'list_projects', input: {} },
        ],
      },
      { text: 'Made project second and queued A.' },
    );
    const reply = await h.ask('make a project called second, queue A, and list projects');
    expect(reply.runs.map((r) => r.command)).toEqual(['create_project', 'create_task', 'list_projects']);
    expect(await h.rt.db.projects.get('second')).not.toBeNull();
    const results = h.fake.toolResultsIn(h.fake.requests[1]);
    expect(results.map((r) => r.tool_use_id)).toEqual(['t1', 't2', 't3']);
    expect(JSON.parse(String(results[0].content))).toMatchObject({ created: 'second' });
    expect(JSON.parse(String(results[1].content))).toMatchObject({ title: 'A', project_id: 'demo' });
    expect(JSON.parse(String(results[2].content)).projects).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'demo' })]));
  });

  it('feeds command errors, invalid input and unknown tools back as is_error results, then answers', async () => {
    h.fake.enqueue(
      {
        toolUses: [
          { id: 'e1', name: 'get_task', input: { task_id: 'ghost' } },
          { id: 'e2', name: 'create_task', input: { title: 42 } },
          { id: 'e3', name: 'restart_daemon', input: {} },
        ],
      },
      { text: 'There is no task called ghost.' },
    );
    const reply = await h.ask('show task ghost');
    expect(reply.text).toBe('There is no task called ghost.');
    const [missing, invalid, excluded] = h.fake.toolResultsIn(h.fake.requests[1]);
    expect(missing).toEqual({
      type: 'tool_result',
      tool_use_id: 'e1',
      content: JSON.stringify({ error: "Task 'ghost' not found." }),
      is_error: true,
    });
    expect(invalid).toMatchObject({ tool_use_id: 'e2', is_error: true });
    expect(JSON.parse(String(invalid.content)).error).toMatch(/^Field 'title' must be text/);
    expect(excluded).toEqual({
      type: 'tool_result',
      tool_use_id: 'e3',
      content: JSON.stringify({ error: 'Unknown command: restart_daemon' }),
      is_error: true,
    });
    expect(h.rt.processController.signals).toEqual([]);
    expect(((await h.rt.exec('list_tasks', {})) as { total: number }).total).toBe(0);
  });

  it('states outcomes in plain words when the model ends without text (never a tool log)', async () => {
    h.fake.enqueue(
      {
        toolUses: [
          { name: 'create_task', input: { title: 'Fix login', description: 'Fix it.' } },
          { name: 'pause_project', input: { project_id: 'demo' } },
        ],
      },
      { text: '' },
    );
    const reply = await h.ask('queue the login fix and pause demo');
    const id = String(reply.runs[0].result.created);
    expect(reply.text).toBe(`Created task ${id} (Fix login) in demo. Paused project demo.`);
    expect(reply.text).not.toMatch(/Actions taken/);
    // The plain-words reply is what the model sees as its own answer next time.
    h.fake.enqueue({ text: 'ok' });
    await h.ask('thanks');
    expect(h.fake.lastRequest().body.messages?.at(-2)).toEqual({ role: 'assistant', content: reply.text });
  });

  it('stops at the round bound and says so honestly, with what it did', async () => {
    h.fake.enqueue({ toolUses: [{ name: 'create_task', input: { title: 'Loop', description: 'Once.' } }] });
    for (let i = 1; i < MAX_TOOL_ROUNDS; i++) h.fake.enqueue({ toolUses: [{ name: 'get_status', input: {} }] });
    const reply = await h.ask('keep checking');
    expect(h.fake.requests).toHaveLength(MAX_TOOL_ROUNDS);
    expect(h.fake.unscriptedCount).toBe(0);
    const id = String(reply.runs[0].result.created);
    expect(reply.text).toBe(
      `I stopped after ${MAX_TOOL_ROUNDS} rounds of tool calls without reaching an answer. So far: Created task ${id} (Loop) in demo.`,
    );

    // The stored conversation stays valid: the next request alternates roles and ends with the new message.
    h.fake.enqueue({ text: 'Back.' });
    await h.ask('are you there?');
    const roles = (h.fake.lastRequest().body.messages ?? []).map((m) => m.role);
    expect(roles.every((r, i) => r === (i % 2 === 0 ? 'user' : 'assistant'))).toBe(true);
  });

  it('a project channel is optional: without one the prompt says to ask which project', async () => {
    h.fake.enqueue({ text: 'Which project?' });
    await h.ask('queue a fix', { projectId: null, conversationId: 'D1:1' });
    expect(systemText(h.fake.requests[0].body)).toContain('not in a project channel');
  });
});
