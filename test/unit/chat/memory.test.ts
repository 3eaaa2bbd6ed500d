import {
  compactConversation,
  cutIndex,
  forStorage,
  KEEP_MESSAGES,
  MAX_MESSAGES,
  STORED_RESULT_CHARS,
  SUMMARY_HEADING,
  withSummary,
} from '../../../src/chat/memory';
import type { ChatMessage, ChatProvider, CreateMessageRequest } from '../../../src/model/provider';

const user = (text: string): ChatMessage => ({ role: 'user', content: text });
const assistant = (text: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const toolCall = (id: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'get_status', input: {} }] });
const toolResult = (id: string, content = '{}'): ChatMessage => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content }],
});

/** n plain exchanges: user, assistant. */
const plain = (n: number) => Array.from({ length: n }, (_, i) => [user(`m${i}`), assistant(`a${i}`)]).flat();

describe('memory rule', () => {
  it('keeps everything up to MAX_MESSAGES', () => {
    expect(cutIndex(plain(MAX_MESSAGES / 2))).toBe(0);
  });

  it('past the bound, keeps about KEEP_MESSAGES starting at a person’s plain message', () => {
    const messages = plain(MAX_MESSAGES / 2 + 1);
    const cut = cutIndex(messages);
    expect(messages.length - cut).toBe(KEEP_MESSAGES);
    expect(messages[cut]).toEqual(user(`m${cut / 2}`));
  });

  it('never cuts between a tool_use and its tool_result', () => {
    // A long tool exchange fills the last KEEP_MESSAGES: the cut moves back to the user message that started it.
    const exchange = [
      user('do it'),
      ...Array.from({ length: 8 }, (_, i) => [toolCall(`t${i}`), toolResult(`t${i}`)]).flat(),
      assistant('done'),
    ];
    const messages = [...plain(8), ...exchange];
    const cut = cutIndex(messages);
    expect(messages[cut]).toEqual(user('do it'));
    // And a tool_result is never at the cut even when it is the natural place.
    for (let extra = 0; extra < 6; extra++) {
      const m = [...plain(10 + extra), toolCall('x'), toolResult('x'), assistant('ok'), ...plain(2)];
      const c = cutIndex(m);
      expect(c === 0 || (m[c].role === 'user' && typeof m[c].content === 'string')).toBe(true);
    }
  });

  it('does not cut when no plain user message exists after the start', () => {
    const messages = [user('go'), ...Array.from({ length: 14 }, (_, i) => [toolCall(`t${i}`), toolResult(`t${i}`)]).flat()];
    expect(cutIndex(messages)).toBe(0);
  });

  it('summarises the dropped part with one bounded call that carries the old summary', async () => {
    const requests: CreateMessageRequest[] = [];
    const provider: ChatProvider = {
      model: 'stub',
      async createMessage(request) {
        requests.push(request);
        return {
          text: 'new summary',
          toolUses: [],
          content: [],
          stopReason: 'end_turn',
          usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheCreationTokens: 0 },
        };
      },
    };
    const messages = plain(MAX_MESSAGES / 2 + 1);
    const result = await compactConversation(provider, 'old summary', messages);
    expect(result.summary).toBe('new summary');
    expect(result.messages).toEqual(messages.slice(cutIndex(messages)));
    expect(result.usage).toMatchObject({ inputTokens: 5 });
    expect(requests).toHaveLength(1);
    expect(requests[0].maxTokens).toBe(512);
    expect(requests[0].tools).toBeUndefined();
    expect(requests[0].system).toMatch(/project names, task ids/);
    expect(String(requests[0].messages[0].content)).toMatch(/^Earlier summary:\nold summary\n\nConversation:\nuser: m0\nassistant: a0/);
    expect(await compactConversation(provider, 'kept', plain(2))).toEqual({ summary: 'kept', messages: plain(2), usage: null });
    expect(requests).toHaveLength(1);
  });

  it('puts the summary at the start of the first user message', () => {
    expect(withSummary(null, [user('hi')])).toEqual([user('hi')]);
    expect(withSummary('S', [user('hi'), assistant('yo')])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: `${SUMMARY_HEADING}\nS` },
          { type: 'text', text: 'hi' },
        ],
      },
      assistant('yo'),
    ]);
    // A history that does not open with a person's message is trimmed to one that does.
    expect(withSummary(null, [toolResult('x'), assistant('a'), user('hi')])).toEqual([user('hi')]);
  });

  it('shortens long tool results for storage only', () => {
    const long = 'x'.repeat(STORED_RESULT_CHARS + 100);
    const [m] = forStorage([toolResult('t', long)]);
    const block = (m.content as Array<{ content: string }>)[0];
    expect(block.content.startsWith('x'.repeat(STORED_RESULT_CHARS))).toBe(true);
    expect(block.content).toMatch(/shortened in memory/);
    expect(forStorage([toolResult('t', 'short'), user('u')])).toEqual([toolResult('t', 'short'), user('u')]);
  });
});
