import type { ChatMessage, ChatProvider, ChatUsage } from './provider';

/**
 * The memory rule: a conversation keeps at most MAX_MESSAGES messages. When it grows past that,
 * the oldest messages are folded into a running summary (one model call) so that KEEP_MESSAGES
 * remain. A cut only ever happens before a person's plain message, so a tool call is never
 * separated from its result.
 */
export const MAX_MESSAGES = 24;
export const KEEP_MESSAGES = 12;
const SUMMARY_MAX_TOKENS = 512;

function isPlainUserMessage(m: ChatMessage): boolean {
  return m.role === 'user' && (typeof m.content === 'string' || m.content.every((b) => b.type === 'text'));
}

/** Index from which to keep messages, or 0 when nothing needs folding. */
export function cutIndex(messages: ChatMessage[]): number {
  if (messages.length <= MAX_MESSAGES) return 0;
  for (let i = messages.length - KEEP_MESSAGES; i < messages.length; i++) {
    if (i > 0 && isPlainUserMessage(messages[i])) return i;
  }
  for (let i = messages.length - KEEP_MESSAGES - 1; i > 0; i--) {
    if (isPlainUserMessage(messages[i])) return i;
  }
  return 0;
}

function transcript(messages: ChatMessage[]): string {
  return messages
    .map((m) => {
      if (typeof m.content === 'string') return `${m.role}: ${m.content}`;
      return m.content
        .map((b) => (b.type === 'text' ? `${m.role}: ${b.text}` : b.type === 'tool_use' ? `${m.role} ran ${b.name} ${JSON.stringify(b.input)}` : `result: ${b.content.slice(0, 500)}`))
        .join('\n');
    })
    .join('\n');
}

/** Folds the oldest messages into the summary when the conversation is over the bound. */
export async function compactConversation(
  provider: ChatProvider,
  summary: string | null,
  messages: ChatMessage[],
): Promise<{ summary: string | null; messages: ChatMessage[]; usage: ChatUsage | null }> {
  const cut = cutIndex(messages);
  if (cut === 0) return { summary, messages, usage: null };
  const dropped = messages.slice(0, cut);
  const response = await provider.createMessage({
    system:
      'Summarise this conversation between a team and their agent dispatcher in a few short lines. Preserve project names, task ids, repository names, decisions and open questions.',
    messages: [{ role: 'user', content: `${summary ? `Earlier summary:\n${summary}\n\n` : ''}Conversation:\n${transcript(dropped)}` }],
    maxTokens: SUMMARY_MAX_TOKENS,
  });
  return { summary: response.text.trim() || summary, messages: messages.slice(cut), usage: response.usage };
}
