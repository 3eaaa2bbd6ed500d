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

/**
 * Python's `str.isspace()` for one UTF-16 unit: the set of PY_S (every Python whitespace
 * character is in the BMP, so a surrogate is never whitespace).
 */
export function isPyWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

const WHITESPACE_RUN = new RegExp(`${PY_S}*`, 'y');

/** Python's `text[start:end].strip()`, without copying the unstripped slice. */
export function pyStripRange(text: string, start: number, end: number): string {
  // A numbered step's body is most often a lone line break.
  if (end - start === 1 && isPyWhitespace(text.charCodeAt(start))) return '';
  let from = start;
  // Short runs in a loop; a long run (a text of blank lines) in one regex step.
  const loopEnd = Math.min(end, start + 16);
  while (from < loopEnd && isPyWhitespace(text.charCodeAt(from))) from++;
  if (from === loopEnd && from < end) {
    WHITESPACE_RUN.lastIndex = from;
    WHITESPACE_RUN.test(text);
    from = Math.min(WHITESPACE_RUN.lastIndex, end);
  }
  let to = end;
  while (to > from && isPyWhitespace(text.charCodeAt(to - 1))) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

/** Python's `str.strip()`. */
export function pyStrip(text: string): string {
  return pyStripRange(text, 0, text.length);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** UTF-16 index just past the first `n` code points (a lone surrogate counts as one). */
function codePointEnd(text: string, n: number): number {
  let i = 0;
  for (let count = 0; count < n && i < text.length; count++) {
    i += isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** Python's `len()`: code points, not UTF-16 units. */
export function pyLen(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}

/** `pyLen(text) >= n`, reading at most the first `n` code points. */
export function pyLenAtLeast(text: string, n: number): boolean {
  if (text.length >= 2 * n) return true;
  if (text.length < n) return false;
  return pyLen(text) >= n;
}

/** Python's `text[:n]`, by code point, so an astral character is never split. */
export function pyPrefix(text: string, n: number): string {
  return text.slice(0, codePointEnd(text, n));
}
