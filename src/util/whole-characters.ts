/**
 * Cutting text without cutting a character in half. JavaScript counts UTF-16 units, and a
 * character outside the Basic Multilingual Plane (most emoji) is two of them: text cut between
 * the two holds a lone surrogate, which Slack shows as "�" and Anthropic's API refuses outright
 * ("no low surrogate in string"), failing the whole request.
 */

/** Where to cut `text` to keep at most `end` UTF-16 units without splitting a character. */
export function wholeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return end > 0 && end < text.length && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** The first `end` UTF-16 units of `text`, or one fewer where the last would be half a character. */
export function cutWhole(text: string, end: number): string {
  return text.slice(0, wholeEnd(text, end));
}

/** `text` when it fits `max` UTF-16 units, else its start and `ellipsis`, `max` units in all at most. */
export function shorten(text: string, max: number, ellipsis = '…'): string {
  return text.length > max ? `${cutWhole(text, max - ellipsis.length)}${ellipsis}` : text;
}

/** A lone surrogate, as regular-expression source (storage replaces it too: src/db/storable-text.ts). */
export const LONE_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE);
const EVERY_LONE_SURROGATE = new RegExp(LONE_SURROGATE, 'g');

/** `text` with every lone surrogate replaced by U+FFFD (what `String.prototype.toWellFormed` does). */
export function wellFormed(text: string): string {
  return HAS_LONE_SURROGATE.test(text) ? text.replace(EVERY_LONE_SURROGATE, '\uFFFD') : text;
}
