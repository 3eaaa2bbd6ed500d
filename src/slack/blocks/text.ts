import type { KnownBlock, RichTextBlock, RichTextElement, RichTextText } from '@slack/types';
import { withoutDirectionOverrides } from '../../util/hidden-characters';

/**
 * The escaping boundary. Text we did not write reaches Slack in one of two ways:
 * - as literal text: rich_text `text` elements and plain_text objects, which Slack never parses
 *   (no mentions, links or *bold* can come out of them), used for titles, names and code;
 * - inside mrkdwn we build with the `md` tag, which escapes every interpolated value.
 * Renderers take untrusted values through these helpers, so none of them can forget to escape.
 * Text through them also loses its right-to-left overrides and isolates (withoutDirectionOverrides),
 * so it cannot reverse what Slack shows after it, whatever string it was built into.
 */

/** Slack escaping for mrkdwn (and the top-level `text` fallback). */
export function esc(text: unknown): string {
  return withoutDirectionOverrides(
    String(text ?? '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;'),
  );
}

/** mrkdwn that is safe to send: our template text plus escaped values. Only `md` and `trusted` make one. */
export class Mrkdwn {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type MdValue = string | number | boolean | null | undefined | Mrkdwn | readonly MdValue[];

function render(value: MdValue): string {
  if (value instanceof Mrkdwn) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return esc(value ?? '');
}

/** mrkdwn from a template: the literal parts are ours, every `${value}` is escaped (Mrkdwn passes as is). */
export function md(strings: TemplateStringsArray, ...values: MdValue[]): Mrkdwn {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new Mrkdwn(out);
}

/** Our own mrkdwn (constants, converted Markdown) marked as safe. Never pass text we did not write. */
export function trusted(text: string): Mrkdwn {
  return new Mrkdwn(text);
}

/** Escaped parts joined by an escaped separator. */
export function mdJoin(parts: readonly MdValue[], separator: string): Mrkdwn {
  return new Mrkdwn(parts.map(render).join(esc(separator)));
}

/**
 * Inline code for a value in mrkdwn. A value with a backtick or a line break cannot sit in a
 * code span without changing it, so it is shown escaped without the span (its text stays exact).
 */
export function mdCode(value: unknown): Mrkdwn {
  const text = String(value ?? '');
  if (text === '' || /[`\n]/.test(text)) return new Mrkdwn(esc(text));
  return new Mrkdwn(`\`${esc(text)}\``);
}

// --- rich text: literal by construction ------------------------------------------------------

export type Style = { bold?: boolean; italic?: boolean; strike?: boolean; code?: boolean };

/** One run of literal text in a rich_text line. */
export function txt(text: unknown, style?: Style): RichTextText {
  return { type: 'text', text: withoutDirectionOverrides(String(text ?? '')), ...(style && { style }) };
}

export const bold = (text: unknown): RichTextText => txt(text, { bold: true });
export const italic = (text: unknown): RichTextText => txt(text, { italic: true });
export const mono = (text: unknown): RichTextText => txt(text, { code: true });

/**
 * A link showing its own address (a label could hide where it goes). Only a plain http(s) or
 * mailto address becomes a link; anything else is shown as text.
 */
export function link(url: string): RichTextElement {
  if (!/^(https?:\/\/|mailto:)[^\s<>|"`]+$/i.test(url)) return txt(url);
  return { type: 'link', url };
}

export type Line = Array<RichTextElement | null | undefined | false>;

/** A rich_text block of lines; empty runs are dropped (Slack rejects empty text elements). */
export function richLines(lines: Line[]): RichTextBlock {
  const elements: RichTextElement[] = [];
  lines.forEach((line, i) => {
    if (i > 0) elements.push(txt('\n'));
    for (const element of line) {
      if (!element) continue;
      if (element.type === 'text' && element.text === '') continue;
      elements.push(element);
    }
  });
  if (elements.length === 0) elements.push(txt(' '));
  return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: mergeNewlines(elements) }] };
}

function mergeNewlines(elements: RichTextElement[]): RichTextElement[] {
  const out: RichTextElement[] = [];
  for (const element of elements) {
    const last = out.at(-1);
    if (last?.type === 'text' && element.type === 'text' && !last.style && !element.style) {
      out[out.length - 1] = { ...last, text: last.text + element.text };
    } else out.push(element);
  }
  return out;
}

/** A preformatted (code) block of literal text: backticks, <, & and * stay exactly as they are. */
export function preformatted(text: string): RichTextBlock {
  return { type: 'rich_text', elements: [{ type: 'rich_text_preformatted', elements: [txt(text || ' ')] }] };
}

/** A plain_text object (labels, titles, options): literal, with emoji shortcodes shown as emoji. */
export function plainText(text: string): { type: 'plain_text'; text: string; emoji: true } {
  return { type: 'plain_text', text: withoutDirectionOverrides(text), emoji: true };
}

/** A section whose text is plain_text: literal, with emoji shortcodes shown as emoji. */
export function plainSection(text: string): KnownBlock {
  return { type: 'section', text: plainText(text || ' ') };
}

/** A context line of literal text. */
export function plainContext(text: string): KnownBlock {
  return { type: 'context', elements: [plainText(text || ' ')] };
}

/** The total length of a rich_text block's visible text. */
export function richLength(block: RichTextBlock): number {
  let n = 0;
  for (const part of block.elements) {
    for (const element of part.elements as Array<{ text?: string }>) n += element.text?.length ?? 1;
  }
  return n;
}

function lineLength(line: Line): number {
  let n = 1;
  for (const element of line) if (element) n += (element as { text?: string }).text?.length ?? 2;
  return n;
}

/** Lines packed into as few rich_text blocks as fit `limit` characters each (a longer line is split). */
export function packRich(lines: Line[], limit: number): RichTextBlock[] {
  const blocks: RichTextBlock[] = [];
  let current: Line[] = [];
  let size = 0;
  for (const line of lines) {
    for (const piece of splitRichLine(line, limit)) {
      const n = lineLength(piece);
      if (current.length && size + n > limit) {
        blocks.push(richLines(current));
        current = [];
        size = 0;
      }
      current.push(piece);
      size += n;
    }
  }
  if (current.length) blocks.push(richLines(current));
  return blocks;
}

/** A line longer than `limit` as several lines, its long text runs split (nothing dropped). */
function splitRichLine(line: Line, limit: number): Line[] {
  if (lineLength(line) <= limit) return [line];
  const out: Line[] = [];
  let current: Line = [];
  let size = 0;
  for (const element of line) {
    if (!element) continue;
    const text = element.type === 'text' ? element.text : null;
    if (text !== null && text.length > limit / 2) {
      for (let i = 0; i < text.length; i += Math.floor(limit / 2)) {
        if (current.length) out.push(current);
        current = [{ ...element, text: text.slice(i, i + Math.floor(limit / 2)) } as RichTextText];
        size = lineLength(current);
      }
      continue;
    }
    const n = lineLength([element]);
    if (size + n > limit && current.length) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(element);
    size += n;
  }
  if (current.length) out.push(current);
  return out;
}
