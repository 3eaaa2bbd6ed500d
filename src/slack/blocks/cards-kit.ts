import type { Button, KnownBlock } from '@slack/types';
import { actionsBlock } from './actions';
import { context, fallbackOf, LIMITS, type Rendered } from './common';
import { fitBlocks, longCode } from './long';
import type { RichTextElement } from '@slack/types';
import { bold, mono, packRich, txt, type Line } from './text';

/** A designed card: a headline, fact lines, optional long text, buttons and a footer. */
export interface Card {
  icon: string;
  /** The headline's words (ours) and the name it is about (literal). */
  title: string;
  subject?: unknown;
  /** Literal lines under the headline. */
  lines?: Line[];
  /** Long literal content (a diff, a log, a file): shown in full or attached. */
  code?: { label: string; text: string; filename: string };
  buttons?: Button[];
  /** Our own mrkdwn for the footer (a hint, a count). */
  footer?: string;
  /** The fallback text: literal, escaped here. */
  summary?: string;
}

/** An edit command's answer: what was updated, and which fields changed. */
export function updatedCard(title: string, subject: unknown, fields: unknown): Rendered {
  return card({ icon: '✏️', title, subject, lines: [[txt(`Changed: ${(Array.isArray(fields) ? fields : []).join(', ')}`)]] });
}

export function card(c: Card): Rendered {
  const head: Line = [
    txt(`${c.icon} `),
    bold(c.title),
    ...(c.subject !== undefined && c.subject !== null && c.subject !== '' ? [txt(' · '), bold(c.subject)] : []),
  ];
  const blocks: KnownBlock[] = packRich([head, ...(c.lines ?? [])], LIMITS.richText);
  let file: ReturnType<typeof longCode>['file'];
  if (c.code) {
    const long = longCode(c.code.label, c.code.text, c.code.filename);
    blocks.push(...long.blocks);
    file = long.file;
  }
  if (c.buttons?.length) blocks.push(actionsBlock(c.buttons));
  if (c.footer) blocks.push(context(c.footer));
  const fitted = fitBlocks(
    blocks,
    () => [c.title, ...(c.lines ?? []).map((l) => l.map((e) => (e && 'text' in e ? e.text : '')).join(''))].join('\n'),
    'card.txt',
  );
  const files = [file, fitted.file].filter((f): f is NonNullable<typeof f> => !!f);
  const summary = c.summary ?? `${c.title}${c.subject ? `: ${String(c.subject)}` : ''}`;
  return { text: fallbackOf(`${c.icon} ${summary}`), blocks: fitted.blocks, ...(files.length && { files }) };
}

/** "label value" pairs joined on one literal line, skipping empty values. */
export function facts(pairs: Array<[string, unknown]>): Line {
  const shown = pairs.filter(([, v]) => v !== null && v !== undefined && v !== '');
  return shown.flatMap(([label, value], i): Line => [txt(`${i ? ' · ' : ''}${label ? `${label} ` : ''}`), txt(String(value))]);
}

/** A list item: "• name  id · facts". */
export function item(name: unknown, id?: unknown, rest: Array<[string, unknown]> = [], icon = '•'): Line {
  const tail = facts(rest);
  return [
    txt(`${icon} `),
    bold(name),
    ...(id !== undefined && id !== null && id !== name ? [txt('  '), mono(id)] : []),
    ...(tail.length ? [txt('  '), ...tail] : []),
  ];
}

/** How many a list holds in all: the reply's count of the whole list when it gives one (a page's reply does), else those shown. */
export function countOf(total: unknown, shown: number): number {
  return typeof total === 'number' ? total : shown;
}

/**
 * A list as a card, with a word when it is empty. `total` counts the whole list when the items
 * are one page of it (renderResult says which page).
 */
export function listCard(icon: string, title: string, items: Line[], empty: string, total?: unknown): Rendered {
  return card({ icon, title: `${title} · ${countOf(total, items.length)}`, lines: items.length ? items : [[txt(empty)]] });
}

export const yesNo = (v: unknown) => (v ? 'yes' : 'no');

/** A channel mention built from an id (a rich text element: nothing else in the text can become one). */
export function channel(id: unknown): RichTextElement {
  return /^[CGD][A-Z0-9]{2,}$/.test(String(id)) ? { type: 'channel', channel_id: String(id) } : txt(String(id ?? ''));
}
