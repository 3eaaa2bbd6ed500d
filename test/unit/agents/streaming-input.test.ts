import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { StreamingPrompt, type AgentInbox, type InboxMessage } from '../../../src/agents/streaming-input';

/** An inbox over an array, as the database would hold it. */
function arrayInbox(): AgentInbox & { send(text: string): void; claimed: number[] } {
  const waiting: InboxMessage[] = [];
  const claimed: number[] = [];
  let next = 1;
  return {
    claimed,
    send(text) {
      waiting.push({ id: next++, text });
    },
    async pending() {
      return waiting.filter((m) => !claimed.includes(m.id));
    },
    async claim(m) {
      if (claimed.includes(m.id)) return false;
      claimed.push(m.id);
      return true;
    },
  };
}

const msg = (m: Record<string, unknown>) => m as unknown as SDKMessage;
const init = msg({ type: 'system', subtype: 'init' });
const toolCall = msg({ type: 'assistant', parent_tool_use_id: null, message: { content: [{ type: 'tool_use' }] } });
const toolResult = msg({ type: 'user', parent_tool_use_id: null, message: { content: [] } });
const answer = msg({ type: 'assistant', parent_tool_use_id: null, message: { content: [{ type: 'text', text: 'done' }] } });
const result = msg({ type: 'result' });

/** Reads the prompt as the SDK would, returning the texts it yielded once it ends. */
async function drain(prompt: StreamingPrompt): Promise<string[]> {
  const texts: string[] = [];
  for await (const m of prompt) texts.push(String(m.message.content));
  return texts;
}

async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((r) => setImmediate(r));
}

describe('StreamingPrompt', () => {
  it('ends input right after a result when nothing was sent', async () => {
    const prompt = new StreamingPrompt('first', undefined, 10, 60_000);
    const texts = drain(prompt);
    prompt.observe(init);
    prompt.observe(answer);
    prompt.observe(result);
    expect(await texts).toEqual(['first']);
  });

  it('a message taken while a tool runs joins that turn: input ends after its one result', async () => {
    const inbox = arrayInbox();
    const prompt = new StreamingPrompt('first', inbox, 5, 60_000);
    const texts = drain(prompt);
    prompt.observe(init);
    prompt.observe(toolCall);
    inbox.send('while the tool runs');
    await until(() => inbox.claimed.length === 1);
    prompt.observe(toolResult);
    prompt.observe(answer);
    prompt.observe(result);
    expect(await texts).toEqual(['first', 'while the tool runs']);
  });

  it('a message taken after the answer keeps input open for its own turn, then ends after that result', async () => {
    const inbox = arrayInbox();
    const prompt = new StreamingPrompt('first', inbox, 5, 60_000);
    const texts = drain(prompt);
    prompt.observe(init);
    inbox.send('late');
    await until(() => inbox.claimed.length === 1);
    prompt.observe(answer);
    prompt.observe(result);
    let ended = false;
    void texts.then(() => (ended = true));
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    prompt.observe(init);
    prompt.observe(answer);
    prompt.observe(result);
    expect(await texts).toEqual(['first', 'late']);
  });

  it('gives up waiting for a turn that never starts after the grace time', async () => {
    const inbox = arrayInbox();
    const prompt = new StreamingPrompt('first', inbox, 5, 20);
    const texts = drain(prompt);
    prompt.observe(init);
    inbox.send('absorbed silently');
    await until(() => inbox.claimed.length === 1);
    prompt.observe(answer);
    prompt.observe(result);
    expect(await texts).toEqual(['first', 'absorbed silently']);
  });
});
