/**
 * Python `re` / `str` semantics the plan-parser spec's expressions were written for, in JS terms:
 * - `\s` and `str.strip()` use Python's whitespace set (which differs from JS's `\s`: it has the
 *   \x1c–\x1f separators and \x85, and lacks \ufeff);
 * - `.` matches anything but `\n` (JS's `.` also stops at `\r`, `\u2028`, `\u2029`);
 * - `^` / `$` in MULTILINE mode only see `\n` as a line break;
 * - `\d` is any Unicode decimal digit.
 */

export const PY_WHITESPACE_CHARS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** Python's `\s` (str patterns). */
export const PY_S = `[${PY_WHITESPACE_CHARS}]`;
/** Python's `.` without DOTALL. */
export const PY_DOT = '[^\\n]';
/** Python's `\d` (str patterns). */
export const PY_D = '\\p{Nd}';
/** Python's `^` with MULTILINE. */
export const PY_LINE_START = '(?<=^|\\n)';
/** Python's `$` with MULTILINE. */
export const PY_LINE_END = '(?=\\n|$)';

const LEADING = new RegExp(`^${PY_S}+`, 'u');
const TRAILING = new RegExp(`${PY_S}+$`, 'u');

/** Python's `str.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Python's `len()`: code points, not UTF-16 units. */
export function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Python's `text[:n]`, by code point, so an astral character is never split. */
export function pyPrefix(text: string, n: number): string {
  let out = '';
  let i = 0;
  for (const ch of text) {
    if (i++ >= n) break;
    out += ch;
  }
  return out;
}
