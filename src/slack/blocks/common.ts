import type { Button, KnownBlock } from '@slack/types';
import { esc, mdCode, preformatted } from './text';
import { wholeEnd } from '../../util/whole-characters';
import { withoutDirectionOverrides } from '../../util/hidden-characters';
import type { AgentState, ProjectStatus, TaskStatus } from '../../db/value-sets';

/** Every state a task, project or agent can be in: each has an emoji and a word. */
type Shown = TaskStatus | ProjectStatus | AgentState;

export { esc } from './text';

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
  /** The `text` fallback of a message (notifications, screen readers); Slack's own cap is 40,000. */
  messageText: 3000,
  /** Characters we put in one rich_text block (Slack documents no smaller cap; this keeps cards readable). */
  richText: 3000,
} as const;

/** Status emoji, as the original's notifications use them (research §6.5). */
export const STATUS_EMOJI: Readonly<Record<string, string>> = {
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
} satisfies Record<Shown, string>;

export function emoji(status: string): string {
  return STATUS_EMOJI[status] ?? '•';
}

/**
 * Text cut to `limit` characters at a line or word boundary, saying how many lines were left out.
 * For places with a hard cap; long content should be split (splitText) or attached instead.
 */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const total = text.split('\n').length;
  const note = (hidden: number) => `\n… cut here, ${hidden} more line${hidden === 1 ? '' : 's'} not shown`;
  let cut = text.slice(0, wholeEnd(text, Math.max(0, limit - note(total).length)));
  const boundary = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
  if (boundary > cut.length / 2) cut = cut.slice(0, boundary);
  cut = cut.replace(/&[a-z]{0,3}$/, '');
  const hidden = total - cut.split('\n').length + (text[cut.length] === '\n' ? 0 : 1);
  return `${cut}${note(Math.max(hidden, 1))}`;
}

/** Text split into pieces of at most `limit` characters, at line breaks where it can (nothing lost). */
export function splitText(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let at = rest.lastIndexOf('\n', limit);
    if (at < limit / 2) at = rest.lastIndexOf(' ', limit);
    if (at < limit / 2) at = wholeEnd(rest, limit);
    pieces.push(rest.slice(0, at));
    rest = rest.slice(rest[at] === '\n' ? at + 1 : at);
  }
  pieces.push(rest);
  return pieces;
}

/** Inline code for a value we did not write (escaped; a value with a backtick is shown without the span). */
export function code(text: unknown): string {
  return mdCode(text).text;
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text || ' ', LIMITS.sectionText) } };
}

/** A section of two-column fields (at most 10, each within 2000 characters). */
export function fields(pairs: Array<[string, string]>): KnownBlock {
  return {
    type: 'section',
    fields: pairs
      .slice(0, LIMITS.fields)
      .map(([label, value]) => ({ type: 'mrkdwn' as const, text: truncate(`*${label}*\n${value || '—'}`, LIMITS.fieldText) })),
  };
}

/**
 * A short label within `limit` characters: cut at a word with an ellipsis, so the cut shows.
 * Labels go into plain_text and table cells as they are, so direction overrides go here (text.ts).
 */
export function clip(untrusted: string, limit: number): string {
  const text = withoutDirectionOverrides(untrusted);
  if (text.length <= limit) return text;
  const cut = text.slice(0, wholeEnd(text, limit - 1));
  const space = cut.lastIndexOf(' ');
  return `${space > limit / 2 ? cut.slice(0, space) : cut}…`;
}

/** A header: plain_text, so the text we did not write shows literally. */
export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: clip(text || ' ', LIMITS.headerText), emoji: true } };
}

export function context(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }] };
}

export function divider(): KnownBlock {
  return { type: 'divider' };
}

/** A code block of literal text in one block, saying how many lines were cut (see codeBlocks for all of it). */
export function codeBlock(text: string, limit: number = LIMITS.richText): KnownBlock {
  return preformatted(truncate(text || ' ', limit));
}

/** Literal text as as many code blocks as it takes, split at line breaks. */
export function codeBlocks(text: string, limit: number = LIMITS.richText): KnownBlock[] {
  return splitText(text || ' ', limit).map((piece) => preformatted(piece));
}

export function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: clip(text, LIMITS.buttonText), emoji: true },
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

/** A message's fallback text (already mrkdwn) within our limit, cut at a word and never inside an entity. */
export function fallback(text: string): string {
  if (text.length <= LIMITS.messageText) return text || ' ';
  let cut = text.slice(0, wholeEnd(text, LIMITS.messageText - 1));
  const space = cut.lastIndexOf(' ');
  if (space > cut.length - 200) cut = cut.slice(0, space);
  return `${cut.replace(/&[a-z]{0,3}$/, '')}…`;
}

/** The fallback `text` for a message from text we did not write (escaped, within the limit). */
export function fallbackOf(untrusted: unknown): string {
  return fallback(esc(untrusted));
}

export interface Rendered {
  /** The top-level fallback: mrkdwn, escaped. */
  text: string;
  blocks: KnownBlock[];
  /** Content too long for the message, to upload next to it (the blocks say so). */
  files?: Array<{ filename: string; title: string; content: string }>;
}

/** Task and agent states as people say them ("awaiting approval", not AWAITING_APPROVAL), the same on every surface. */
const STATUS_WORDS: Readonly<Record<string, string>> = {
  DEFINED: 'waiting on other tasks',
  READY: 'ready',
  ASSIGNED: 'assigned',
  IN_PROGRESS: 'running',
  WAITING_INPUT: 'waiting for input',
  PAUSED: 'paused',
  AWAITING_APPROVAL: 'awaiting approval',
  COMPLETED: 'completed',
  FAILED: 'failed',
  BLOCKED: 'blocked',
  ACTIVE: 'active',
  IDLE: 'idle',
  BUSY: 'busy',
} satisfies Record<Shown, string>;

export function statusWord(status: unknown): string {
  const key = String(status ?? '');
  return STATUS_WORDS[key] ?? key.toLowerCase().replace(/_/g, ' ');
}
