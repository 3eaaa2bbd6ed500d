import type { ChatContentBlock, ChatMessage, ChatProvider, ChatUsage } from '../model/provider';
import { cutWhole } from '../util/whole-characters';

/**
 * The memory rule. A conversation (one Slack thread, one DM) is stored in `chat_threads` as
 * Anthropic-shaped messages plus a running summary.
 *
 * - After a turn, if more than MAX_MESSAGES messages are stored, the oldest are folded into the
 *   summary with one model call (SUMMARY_MAX_TOKENS) so that about KEEP_MESSAGES remain.
 * - A cut only ever falls just before a person's plain text message, so a tool_use is never
 *   separated from its tool_result and the kept part starts with a user turn. When no such
 *   message exists in range, nothing is cut this time (the next turn adds one).
 * - The summary reaches the model as the opening text of the first user message.
 * - Stored tool results are shortened to STORED_RESULT_CHARS; the model saw them in full
 *   during the turn they were made.
 */
export const MAX_MESSAGES = 24;
export const KEEP_MESSAGES = 12;
export const SUMMARY_MAX_TOKENS = 512;
export const STORED_RESULT_CHARS = 4000;

export const SUMMARY_INSTRUCTIONS =
  'You keep the memory of a Slack conversation between a team and their agent dispatcher. Write a short summary (a few lines) ' +
  'of the conversation you are given, merged with the earlier summary if there is one. Preserve project names, task ids, ' +
  'repository names, decisions made, and questions still open. Leave out greetings and anything already resolved and unimportant.';

export const SUMMARY_HEADING = '[Summary of the earlier part of this conversation]';

function isPlainUserMessage(m: ChatMessage): boolean {
  return m.role === 'user' && (typeof m.content === 'string' || m.content.every((b) => b.type === 'text'));
}

/** Index from which to keep messages, or 0 when nothing needs folding. */
export function cutIndex(messages: ChatMessage[]): number {
  if (messages.length <= MAX_MESSAGES) return 0;
  for (let i = Math.max(1, messages.length - KEEP_MESSAGES); i < messages.length; i++) {
    if (isPlainUserMessage(messages[i])) return i;
  }
  for (let i = messages.length - KEEP_MESSAGES - 1; i > 0; i--) {
    if (isPlainUserMessage(messages[i])) return i;
  }
  return 0;
}

function transcript(messages: ChatMessage[]): string {
  const line = (role: string, b: ChatContentBlock) =>
    b.type === 'text'
      ? `${role}: ${b.text}`
      : b.type === 'tool_use'
        ? `${role} ran ${b.name} ${JSON.stringify(b.input)}`
        : `result${b.is_error ? ' (error)' : ''}: ${cutWhole(b.content, 500)}`;
  return messages
    .map((m) => (typeof m.content === 'string' ? `${m.role}: ${m.content}` : m.content.map((b) => line(m.role, b)).join('\n')))
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
  const response = await provider.createMessage({
    system: SUMMARY_INSTRUCTIONS,
    messages: [
      { role: 'user', content: `${summary ? `Earlier summary:\n${summary}\n\n` : ''}Conversation:\n${transcript(messages.slice(0, cut))}` },
    ],
    maxTokens: SUMMARY_MAX_TOKENS,
  });
  return { summary: response.text.trim() || summary, messages: messages.slice(cut), usage: response.usage };
}

/**
 * The messages as the model sees them: anything before the first plain user message is dropped
 * (a conversation must open with one), and the summary opens that message.
 */
export function withSummary(summary: string | null, messages: ChatMessage[]): ChatMessage[] {
  const start = messages.findIndex(isPlainUserMessage);
  if (start < 0) return [];
  const [first, ...rest] = messages.slice(start);
  if (!summary) return [first, ...rest];
  const note: ChatContentBlock = { type: 'text', text: `${SUMMARY_HEADING}\n${summary}` };
  const blocks: ChatContentBlock[] = typeof first.content === 'string' ? [{ type: 'text', text: first.content }] : first.content;
  return [{ role: 'user', content: [note, ...blocks] }, ...rest];
}

/** Shortens long tool results before the conversation is stored. */
export function forStorage(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (typeof m.content === 'string') return m;
    const content = m.content.map((b) =>
      b.type === 'tool_result' && b.content.length > STORED_RESULT_CHARS
        ? { ...b, content: `${cutWhole(b.content, STORED_RESULT_CHARS)}… (shortened in memory; run the command again for the rest)` }
        : b,
    );
    return { ...m, content };
  });
}
