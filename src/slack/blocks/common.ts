import type { Button, KnownBlock } from '@slack/types';

/** Block Kit limits we render within. */
export const LIMITS = { blocksPerMessage: 50, blocksPerHome: 100, sectionText: 3000, fieldText: 2000, buttonText: 75, actionValue: 2000, fields: 10 } as const;

export const STATUS_EMOJI: Record<string, string> = {
  DEFINED: '⚪',
  READY: '🔵',
  ASSIGNED: '📋',
  IN_PROGRESS: '🟡',
  WAITING_INPUT: '💬',
  PAUSED: '⏸️',
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

/** Text cut to `limit` characters with a note of what was left out. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit - 60);
  const hiddenLines = text.slice(cut.length).split('\n').length - 1;
  return `${cut}\n… truncated${hiddenLines > 0 ? `, ${hiddenLines} more lines` : ''}`;
}

/** Slack escaping for text we did not write. */
export function esc(text: unknown): string {
  return String(text ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: text.slice(0, 150), emoji: true } };
}

export function context(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }] };
}

export function codeBlock(text: string, limit: number = LIMITS.sectionText): KnownBlock {
  const body = truncate(text || ' ', limit - 8);
  return { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${body.replace(/```/g, "'''")}\`\`\`` } };
}

export function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: text.slice(0, LIMITS.buttonText), emoji: true },
    action_id: actionId,
    value: value.slice(0, LIMITS.actionValue),
    ...(style && { style }),
  };
}

/** Keeps a message within Slack's block count, saying how much was left out. */
export function capBlocks(blocks: KnownBlock[], limit: number = LIMITS.blocksPerMessage): KnownBlock[] {
  if (blocks.length <= limit) return blocks;
  return [...blocks.slice(0, limit - 1), context(`… ${blocks.length - limit + 1} more not shown`)];
}

export interface Rendered {
  text: string;
  blocks: KnownBlock[];
}
