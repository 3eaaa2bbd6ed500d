/**
 * The spec's line patterns, found the way `matchAll` finds them with Python's MULTILINE `^`:
 *
 *   heading        ^(#{2,3})\s+(.+)$
 *   numbered item  ^(\d+)[.)]\s+(.+)$
 *   title heading  ^#\s+(.+)$
 *
 * `^` written as a lookbehind (python-text.ts) makes the regex engine stop at every offset of
 * the text to look back, and `matchAll` over a whole document builds every match at once. Here
 * a plain search finds the next line that starts with the pattern's first character, the rest of
 * the expression (sticky, without `^`) is tried there only, and matches are read one at a time.
 * test/unit/plan/plan-equivalence.test.ts checks the results against the expressions as written.
 */
import { isPyWhitespace, PY_D, PY_DOT, PY_S } from './python-text';

const NEWLINE = 0x0a;
const HASH = 0x23;

/**
 * A pattern `^<marker>\s+(.+)$`. It matches where `<marker>\s+` is followed by a character other
 * than `\n` (greedy `\s+` gives back whitespace until one is found, and `(.+)` then runs to the
 * end of the line). Lines are found by searching for the marker's first character, which is
 * rare in most text, rather than by stopping at every line break.
 */
class LinePattern {
  /** Sticky at a line start; `test` leaves `lastIndex` where `(.+)` starts. */
  readonly toText: RegExp;

  constructor(
    marker: string,
    /** Index of the first character at or after `from` that can start the marker, or -1. */
    private readonly nextMarkerStart: (content: string, from: number) => number,
    /** A quick test of the character after the first, true when the pattern can match. */
    private readonly secondCharacterFits: (code: number) => boolean = () => true,
  ) {
    this.toText = new RegExp(`${marker}${PY_S}+(?=${PY_DOT})`, 'uy');
  }

  /** The first line start at or after `from` (itself a line start) where the pattern matches, or -1. */
  find(content: string, from: number): number {
    let at = this.nextMarkerStart(content, from);
    while (at !== -1) {
      const lineStart = at === 0 || content.charCodeAt(at - 1) === NEWLINE;
      if (lineStart && this.secondCharacterFits(content.charCodeAt(at + 1))) {
        this.toText.lastIndex = at;
        if (this.toText.test(content)) return at;
      }
      const lineEnd = content.indexOf('\n', at);
      if (lineEnd === -1) return -1;
      at = this.nextMarkerStart(content, lineEnd + 1);
    }
    return -1;
  }
}

const nextHash = (content: string, from: number) => content.indexOf('#', from);

const DIGIT = new RegExp(PY_D, 'gu');
function nextDigit(content: string, from: number): number {
  const code = content.charCodeAt(from);
  if (code >= 0x30 && code <= 0x39) return from;
  DIGIT.lastIndex = from;
  if (!DIGIT.test(content)) return -1;
  const after = DIGIT.lastIndex;
  const lowSurrogate = content.charCodeAt(after - 1) >= 0xdc00 && content.charCodeAt(after - 1) <= 0xdfff;
  return lowSurrogate ? after - 2 : after - 1;
}

const HEADING = new LinePattern('#{2,3}', nextHash, (code) => code === HASH);
const NUMBERED_ITEM = new LinePattern(`${PY_D}+[.)]`, nextDigit);
const TITLE_HEADING = new LinePattern('#', nextHash, isPyWhitespace);

/**
 * Reads the matches of one pattern in order. After `next()` returns true, the match is
 * `content.slice(start, end)` and its `(.+)` text is `content.slice(textStart, end)`.
 */
export class LineScanner {
  start = -1;
  textStart = -1;
  end = -1;
  private from = 0;

  private constructor(
    private readonly content: string,
    private readonly pattern: LinePattern,
  ) {}

  static headings(content: string): LineScanner {
    return new LineScanner(content, HEADING);
  }

  static numberedItems(content: string): LineScanner {
    return new LineScanner(content, NUMBERED_ITEM);
  }

  static titleHeadings(content: string): LineScanner {
    return new LineScanner(content, TITLE_HEADING);
  }

  /** Moves to the next match; false when there is none left. */
  next(): boolean {
    const { content, pattern } = this;
    const start = this.from > content.length ? -1 : pattern.find(content, this.from);
    if (start === -1) {
      this.from = content.length + 1;
      return false;
    }
    this.start = start;
    this.textStart = pattern.toText.lastIndex;
    const lineEnd = content.indexOf('\n', this.textStart);
    this.end = lineEnd === -1 ? content.length : lineEnd;
    // The next match starts on a line after this one.
    this.from = this.end + 1;
    return true;
  }
}

/** Where the first match of a scanner's pattern starts, or -1. */
export function firstMatchStart(scanner: LineScanner): number {
  return scanner.next() ? scanner.start : -1;
}
