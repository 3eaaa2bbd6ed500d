import type { Button, KnownBlock } from '@slack/types';

/**
 * Block Kit limits we render within (Slack's reference: 50 blocks in a message, 100 in a Home
 * view, 3000 characters of section text, 2000 per field and at most 10 fields, 75 for button
 * text, 255 for an action_id and 2000 for a button value, 150 for a header).
 */
export const LIMITS = {
  blocksPerMessage: 50,
  blocksPerHome: 100,
  sectionText: 3000,
  fieldText: 2000,
  fields: 10,
  buttonText: 75,
  actionId: 255,
  actionValue: 2000,
  headerText: 150,
  /** The `text` fallback of a message (notifications, screen readers). */
  messageText: 3000,
} as const;

/** Status emoji, as the original's notifications use them (research §6.5). */
export const STATUS_EMOJI: Record<string, string> = {
  DEFINED: '⚪',
  READY: '🔵',
  ASSIGNED: '📋',
  IN_PROGRESS: '🟡',
  WAITING_INPUT: '💬',
  PAUSED: '⏸️',
  VERIFYING: '🔍',
  AWAITING_APPROVAL: '⏳',
  COMPLETED: '🟢',
  FAILED: '🔴',
  BLOCKED: '⛔',
  ACTIVE: '🟢',
  IDLE: '💤',
  BUSY: '🛠️',
};

export function emoji(status: string): string {
  return STATUS_EMOJI[status] ?? '•';
}

/** Text cut to `limit` characters, saying how many lines were left out. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const note = (hidden: number) => `\n… truncated, ${hidden} more line${hidden === 1 ? '' : 's'}`;
  const cut = text.slice(0, Math.max(0, limit - note(text.split('\n').length).length));
  const hidden = text.split('\n').length - cut.split('\n').length + (text[cut.length] === '\n' ? 0 : 1);
  return `${cut}${note(Math.max(hidden, 1))}`;
}

/** Slack escaping for text we did not write. */
export function esc(text: unknown): string {
  return String(text ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inline code that cannot be broken by a backtick in the value. */
export function code(text: unknown): string {
  return `\`${esc(text).replace(/`/g, 'ˋ')}\``;
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text || ' ', LIMITS.sectionText) } };
}

/** A section of two-column fields (at most 10, each within 2000 characters). */
export function fields(pairs: Array<[string, string]>): KnownBlock {
  return {
    type: 'section',
    fields: pairs.slice(0, LIMITS.fields).map(([label, value]) => ({ type: 'mrkdwn' as const, text: truncate(`*${label}*\n${value || '—'}`, LIMITS.fieldText) })),
  };
}

export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: text.slice(0, LIMITS.headerText), emoji: true } };
}

export function context(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }] };
}

export function divider(): KnownBlock {
  return { type: 'divider' };
}

/** A code block that fits one section, saying how many lines were cut. */
export function codeBlock(text: string, limit: number = LIMITS.sectionText): KnownBlock {
  const body = truncate((text || ' ').replace(/```/g, "'''"), limit - 6);
  return { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${body}\`\`\`` } };
}

export function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: text.slice(0, LIMITS.buttonText), emoji: true },
    action_id: actionId.slice(0, LIMITS.actionId),
    value: value.slice(0, LIMITS.actionValue),
    ...(style && { style }),
  };
}

/** Keeps a message within Slack's block count, saying how much was left out. */
export function capBlocks(blocks: KnownBlock[], limit: number = LIMITS.blocksPerMessage): KnownBlock[] {
  if (blocks.length <= limit) return blocks;
  return [...blocks.slice(0, limit - 1), context(`… ${blocks.length - limit + 1} more not shown`)];
}

/** Lines packed into as few sections as fit (each within the section limit). */
export function packLines(lines: string[], separator = '\n'): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let current = '';
  for (const line of lines) {
    const piece = truncate(line, LIMITS.sectionText - 10);
    if (current && current.length + separator.length + piece.length > LIMITS.sectionText) {
      blocks.push(section(current));
      current = '';
    }
    current = current ? `${current}${separator}${piece}` : piece;
  }
  if (current) blocks.push(section(current));
  return blocks;
}

/** A message's fallback text within Slack's limit. */
export function fallback(text: string): string {
  return text.length > LIMITS.messageText ? `${text.slice(0, LIMITS.messageText - 1)}…` : text || ' ';
}

export interface Rendered {
  text: string;
  blocks: KnownBlock[];
}
