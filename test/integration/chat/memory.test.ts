// @database-dependent: conversations are stored, serialised and counted in SQL.
import { KEEP_MESSAGES, MAX_MESSAGES, SUMMARY_HEADING, SUMMARY_INSTRUCTIONS, SUMMARY_MAX_TOKENS } from '../../../src/chat/memory';
import type { ChatMessage } from '../../../src/model/provider';
import type { RecordedRequest } from '../../support/fake-anthropic';
import { actor, chatHarness, systemText, type ChatHarness } from './setup';

const isSummaryCall = (r: RecordedRequest) => r.body.tools === undefined;

/** Every tool_result must answer a tool_use of the message right before it. */
function wellFormed(messages: ChatMessage[]): boolean {
  return messages.every((m, i) => {
    if (typeof m.content === 'string') return true;
    return m.content.every((b) => {
      if (b.type !== 'tool_result') return true;
      const prev = messages[i - 1];
      return Array.isArray(prev?.content) && prev.content.some((p) => p.type === 'tool_use' && p.id === b.tool_use_id);
    });
  });
}

describe('chat memory: persisted per conversation, bounded with a summary', () => {
  let h: ChatHarness;
  beforeEach(async () => {
    h = await chatHarness();
  });
  afterEach(() => h.cleanup());

  it('keeps a conversation across a restart, and conversations apart', async () => {
    h.fake.enqueue({ text: 'Noted: demo is the website.' });
    await h.ask('remember that demo is the website', { conversationId: 'C1:mem' });
    const restarted = h.restart();
    h.fake.enqueue({ text: 'It is the website.' }, { text: 'Fresh start.' });
    await restarted.reply({ conversationId: 'C1:mem', text: 'what is demo for?', actor, userName: 'Ana' });
    expect(h.fake.lastRequest().body.messages).toEqual([
      { role: 'user', content: 'remember that demo is the website' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: demo is the website.' }] },
      { role: 'user', content: '[from Ana] what is demo for?' },
    ]);
    await restarted.reply({ conversationId: 'C1:other', text: 'hello', actor });
    expect(h.fake.lastRequest().body.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('folds old messages into a summary with one model call, never splitting a tool call from its result', async () => {
    let turn = 0;
    const answer = (r: RecordedRequest) => {
      if (isSummaryCall(r)) return { text: 'SUMMARY: demo is the website; task ids kept.' };
      const last = r.body.messages?.at(-1);
      // Every other turn the model calls a tool first, so tool exchanges sit all along the history.
      if (turn % 2 === 1 && typeof last?.content === 'string') return { toolUses: [{ name: 'get_status', input: {} }] };
      return { text: `answer ${turn}` };
    };
    for (let i = 0; i < 60; i++) h.fake.enqueue(answer);
    let summaryCallAt = -1;
    for (turn = 0; turn < 12; turn++) {
      await h.ask(`message ${turn}`, { conversationId: 'C1:long' });
      const stored = await h.rt.db.chatThreads.load('C1:long');
      if (stored.summary && summaryCallAt < 0) summaryCallAt = turn;
      const turns = stored.turns as ChatMessage[];
      expect(turns.length).toBeLessThanOrEqual(MAX_MESSAGES);
      expect(turns[0]).toMatchObject({ role: 'user', content: expect.any(String) });
      expect(wellFormed(turns)).toBe(true);
    }
    // 2 messages per plain turn, 4 per tool turn: the bound is crossed within 12 turns.
    expect(summaryCallAt).toBeGreaterThan(0);
    const summaryCalls = h.fake.requests.filter(isSummaryCall);
    expect(summaryCalls.length).toBeGreaterThanOrEqual(1);
    const first = summaryCalls[0].body;
    expect(first.max_tokens).toBe(SUMMARY_MAX_TOKENS);
    expect(systemText(first)).toBe(SUMMARY_INSTRUCTIONS);
    expect(String(first.messages?.[0].content)).toContain('user: message 0');
    expect(String(first.messages?.[0].content)).toContain('ran get_status');

    const stored = await h.rt.db.chatThreads.load('C1:long');
    expect(stored.summary).toBe('SUMMARY: demo is the website; task ids kept.');
    expect(stored.turns.length).toBeGreaterThanOrEqual(KEEP_MESSAGES - 3);

    // The summary opens the first user message of the next request.
    h.fake.enqueue({ text: 'Still the website.' });
    await h.ask('and now?', { conversationId: 'C1:long' });
    const sent = h.fake.lastRequest().body.messages ?? [];
    const opening = sent[0].content as Array<{ type: string; text: string }>;
    expect(sent[0].role).toBe('user');
    expect(opening[0]).toEqual({ type: 'text', text: `${SUMMARY_HEADING}\nSUMMARY: demo is the website; task ids kept.` });
    expect(opening[1]).toEqual({ type: 'text', text: (stored.turns[0] as ChatMessage).content });
    expect(wellFormed(sent as ChatMessage[])).toBe(true);
  });

  it('serialises messages that arrive together in one conversation', async () => {
    h.fake.enqueue({ text: 'first answer', delayMs: 150 }, { text: 'second answer' });
    const [a, b] = await Promise.all([h.ask('first', { conversationId: 'C1:busy' }), h.ask('second', { conversationId: 'C1:busy' })]);
    expect([a.text, b.text]).toEqual(['first answer', 'second answer']);
    expect(h.fake.requests[1].body.messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
      { role: 'user', content: 'second' },
    ]);
  });

  it('records every model call of a turn as chat token usage for the conversation’s project', async () => {
    const usage = { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 300, cache_creation_input_tokens: 50 };
    h.fake.enqueue({ toolUses: [{ name: 'get_status', input: {} }], usage }, { text: 'All quiet.', usage });
    await h.ask('status?');
    const rows = (await h.rt.db.orm.em
      .fork()
      .getConnection()
      .execute(
        "select project_id, source, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, tokens from token_usage where source = 'chat'",
      )) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        project_id: 'demo',
        input_tokens: 100,
        output_tokens: 20,
        cache_read_tokens: 300,
        cache_creation_tokens: 50,
        tokens: 470,
      });
    }
    const report = (await h.rt.exec('get_token_usage', { project_id: 'demo' })) as { total: number };
    expect(report.total).toBe(940);
  });
});
