import { apiFailureText, describeOutcome, runAgentTurn } from '../../../src/chat/agent';
import { ModelCallError } from '../../../src/model/provider';
import type { ChatProvider, ChatResponse, ChatToolUse, CreateMessageRequest } from '../../../src/model/provider';
import type { AnyCommand, CommandResult } from '../../../src/commands/catalog';
import type { CommandHandler } from '../../../src/commands/handler';
import { z } from 'zod';

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 };

function scripted(...turns: Array<{ text?: string; tools?: ChatToolUse[] } | Error>): ChatProvider & { requests: CreateMessageRequest[] } {
  const requests: CreateMessageRequest[] = [];
  return {
    model: 'stub',
    requests,
    async createMessage(request): Promise<ChatResponse> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const turn = turns.shift() ?? { text: 'end' };
      if (turn instanceof Error) throw turn;
      const tools = turn.tools ?? [];
      const content = [
        ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
        ...tools.map((t) => ({ type: 'tool_use' as const, ...t })),
      ];
      return { text: turn.text ?? '', toolUses: tools, content, stopReason: tools.length ? 'tool_use' : 'end_turn', usage };
    },
  };
}

/** A handler whose commands wait `ms` (from args) and log when they start and end. */
function stubHandler(log: string[], run?: (name: string, args: Record<string, unknown>) => Promise<CommandResult>): CommandHandler {
  const commands: Record<string, Partial<AnyCommand>> = {
    slow: { name: 'slow', kind: 'change' },
    look: { name: 'look', kind: 'read' },
    explode: { name: 'explode', kind: 'change' },
    drop_all: { name: 'drop_all', kind: 'destructive', input: z.object({ really: z.boolean() }) as never },
  };
  return {
    command: (name: string) => commands[name] as AnyCommand | undefined,
    async executeAny(name: string, args: Record<string, unknown>) {
      if (run) return run(name, args);
      if (name === 'explode') throw new Error('kaboom');
      log.push(`start ${String(args.n)}`);
      await new Promise((r) => setTimeout(r, Number(args.ms ?? 0)));
      log.push(`end ${String(args.n)}`);
      return name === 'look' ? { seen: args.n } : { updated: String(args.n) };
    },
  } as unknown as CommandHandler;
}

const base = {
  actor: { source: 'chat' as const, userId: 'U1' },
  system: 'sys',
  tools: [],
  messages: [{ role: 'user' as const, content: 'go' }],
};

describe('runAgentTurn', () => {
  it('runs one round’s calls together and keeps results in call order', async () => {
    const log: string[] = [];
    const provider = scripted(
      {
        tools: [
          { id: 'a', name: 'slow', input: { n: 1, ms: 40 } },
          { id: 'b', name: 'slow', input: { n: 2, ms: 5 } },
        ],
      },
      { text: 'Both updated.' },
    );
    const out = await runAgentTurn({ ...base, provider, handler: stubHandler(log) });
    expect(log).toEqual(['start 1', 'start 2', 'end 2', 'end 1']);
    expect(out.runs.map((r) => r.args.n)).toEqual([1, 2]);
    const results = provider.requests[1].messages.at(-1)!.content as Array<{ tool_use_id: string }>;
    expect(results.map((r) => r.tool_use_id)).toEqual(['a', 'b']);
    expect(out.text).toBe('Both updated.');
    expect(out.usage).toHaveLength(2);
  });

  it('turns a thrown command into an error result, and survives a failing progress callback', async () => {
    const provider = scripted({ tools: [{ id: 'x', name: 'explode', input: {} }] }, { text: 'It failed.' });
    const out = await runAgentTurn({
      ...base,
      provider,
      handler: stubHandler([]),
      onProgress: () => {
        throw new Error('slack down');
      },
    });
    expect(out.text).toBe('It failed.');
    expect(provider.requests[1].messages.at(-1)!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'x', content: '{"error":"kaboom"}', is_error: true },
    ]);
  });

  it('holds confirm commands without running them', async () => {
    const log: string[] = [];
    const provider = scripted({ tools: [{ id: 'd', name: 'drop_all', input: { really: true } }] }, { text: '' });
    const out = await runAgentTurn({ ...base, provider, handler: stubHandler(log) });
    expect(log).toEqual([]);
    expect(out.pendingConfirmations).toEqual([
      { id: expect.any(String), command: 'drop_all', args: { really: true }, summary: 'Run drop_all with really=true.' },
    ]);
    expect(out.text).toBe('Waiting for someone to confirm: Run drop_all with really=true.');
  });

  it('reports a failed call honestly and ends the stored conversation with that reply', async () => {
    const err = new ModelCallError('rate_limited', 'rate', 429);
    const provider = scripted({ tools: [{ id: 'l', name: 'look', input: { n: 1 } }] }, err);
    const out = await runAgentTurn({ ...base, provider, handler: stubHandler([]) });
    expect(out.failed).toBe(true);
    expect(out.text).toBe(
      "I couldn't finish because the model is rate limited right now. Nothing was changed. Please try again in a moment.",
    );
    expect(out.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(out.messages.at(-1)).toEqual({ role: 'assistant', content: out.text });
  });

  it('stops at maxRounds', async () => {
    const provider = scripted(...Array.from({ length: 5 }, (_, i) => ({ tools: [{ id: `s${i}`, name: 'slow', input: { n: i } }] })));
    const out = await runAgentTurn({ ...base, provider, handler: stubHandler([]), maxRounds: 3 });
    expect(provider.requests).toHaveLength(3);
    expect(out.text).toBe('I stopped after 3 rounds of tool calls without reaching an answer. So far: Updated 0. Updated 1. Updated 2.');
  });
});

describe('plain-words outcomes', () => {
  it('describes actions, failures, lookups and waits without a tool log', () => {
    expect(
      describeOutcome([{ command: 'create_task', args: {}, result: { created: 'swift-fox-042', title: 'Fix login', project_id: 'demo' } }]),
    ).toBe('Created task swift-fox-042 (Fix login) in demo.');
    expect(describeOutcome([{ command: 'create_project', args: {}, result: { created: 'demo', name: 'demo' } }])).toBe(
      'Created project demo.',
    );
    expect(describeOutcome([{ command: 'approve_task', args: {}, result: { approved: 't1', title: 'T' } }])).toBe('Approved task t1 (T).');
    const queued = { approved: 't1', title: 'T', queued_for_landing: true, landing: 'Queued for landing: #2 in the merge train.' };
    expect(describeOutcome([{ command: 'approve_task', args: {}, result: queued }])).toBe(
      'Approved task t1 (T). Queued for landing: #2 in the merge train.',
    );
    expect(describeOutcome([{ command: 'get_task', args: {}, result: { error: "Task 'x' not found." } }])).toBe(
      "get_task failed: Task 'x' not found.",
    );
    expect(describeOutcome([{ command: 'list_tasks', args: {}, result: { tasks: [] } }])).toMatch(/^I looked things up \(list_tasks\)/);
    expect(describeOutcome([])).toBe('I have no answer to that. Could you say it another way?');
    expect(describeOutcome([{ command: 'x', args: {}, result: { created: 'a' } }]).includes('Actions taken')).toBe(false);
  });

  it('names the failure', () => {
    const text = (e: unknown) => apiFailureText(e, null);
    expect(text(new ModelCallError('auth', 'x', 401))).toMatch(/rejected the API key/);
    expect(text(new ModelCallError('overloaded', 'x', 529))).toMatch(/overloaded/);
    expect(text(new ModelCallError('server', 'x', 503))).toMatch(/failed \(HTTP 503\)/);
    expect(text(new ModelCallError('refused', 'x', 400))).toMatch(/refused the request \(HTTP 400\)/);
    expect(text(new ModelCallError('cancelled', 'x'))).toMatch(/the request was cancelled/);
    expect(text(new ModelCallError('rate_limited', 'x', 429))).toMatch(/rate limited/);
    expect(text(new Error('ECONNREFUSED'))).toMatch(/could not be reached/);
    // A look-alike object is not a model failure: only the provider's class counts.
    expect(text({ status: 401 })).toMatch(/could not be reached/);
    expect(apiFailureText(new ModelCallError('server', 'x', 500), 'Created task t1.')).toMatch(/Before that: Created task t1\. Please/);
  });
});
