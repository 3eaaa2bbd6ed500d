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
 * rare in most text, rather than by stopping at every line break. Each pattern is a subclass, so
 * that the engine can inline its small tests into `find` (a plan of 840k steps runs them 840k
 * times).
 */
abstract class LinePattern {
  /** Sticky at a line start; `test` leaves `lastIndex` where `(.+)` starts. */
  private readonly toText: RegExp;
  /** Where `(.+)` of the last match found starts. */
  textStart = -1;

  constructor(marker: string) {
    this.toText = new RegExp(`${marker}${PY_S}+(?=${PY_DOT})`, 'uy');
  }

  /** Index of the first character at or after `from` that can start the marker, or -1. */
  protected abstract nextMarkerStart(content: string, from: number): number;

  /** A quick test of the character after the first, true when the pattern can match. */
  protected abstract secondCharacterFits(code: number): boolean;

  /**
   * Where `(.+)` starts for a line at `at` in the common plain-ASCII case, without the regex;
   * NO_MATCH when the line certainly does not match, ASK_THE_REGEX when it is not that simple.
   */
  protected abstract plainTextStart(content: string, at: number): number;

  /** The first line start at or after `from` (itself a line start) where the pattern matches, or -1. */
  find(content: string, from: number): number {
    let at = this.nextMarkerStart(content, from);
    while (at !== -1) {
      const lineStart = at === 0 || content.charCodeAt(at - 1) === NEWLINE;
      if (lineStart && this.secondCharacterFits(content.charCodeAt(at + 1))) {
        const plain = this.plainTextStart(content, at);
        if (plain >= 0) {
          this.textStart = plain;
          return at;
        }
        if (plain === ASK_THE_REGEX) {
          this.toText.lastIndex = at;
          if (this.toText.test(content)) {
            this.textStart = this.toText.lastIndex;
            return at;
          }
        }
      }
      const lineEnd = content.indexOf('\n', at);
      if (lineEnd === -1) return -1;
      at = this.nextMarkerStart(content, lineEnd + 1);
    }
    return -1;
  }
}

const isAsciiDigit = (code: number) => code >= 0x30 && code <= 0x39;

/** What `plainTextStart` answers when it cannot tell, and when the line certainly does not match. */
const ASK_THE_REGEX = -1;
const NO_MATCH = -2;

/** The longest run of digits or whitespace read here rather than by the regex. */
const PLAIN_RUN = 64;

/** Python's `\s` among ASCII characters. */
const isAsciiWhitespace = (code: number) => code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);

/**
 * `\s+(?=.)` from `at`, for ASCII text. Greedy `\s+` takes the whole run of whitespace (line
 * breaks too) and gives back until a character other than `\n` follows: when the run ends at an
 * ASCII character that is not whitespace, `(.+)` starts right there. A run that ends at a
 * non-ASCII character or at the end of the text is left to the regex.
 */
function plainSpacesThenText(content: string, at: number): number {
  let i = at;
  let code = content.charCodeAt(i);
  if (code < 0x80 && !isAsciiWhitespace(code)) return NO_MATCH;
  // A long run (a text of blank lines) is the regex's: it reads one faster than this loop.
  const shortEnd = at + PLAIN_RUN;
  while (isAsciiWhitespace(code) && i < shortEnd) code = content.charCodeAt(++i);
  return i > at && i < shortEnd && code < 0x80 ? i : ASK_THE_REGEX;
}

/** `^(#{2,3})\s+(.+)$` */
class HeadingPattern extends LinePattern {
  constructor() {
    super('#{2,3}');
  }

  protected nextMarkerStart(content: string, from: number): number {
    return content.indexOf('#', from);
  }

  protected secondCharacterFits(code: number): boolean {
    return code === HASH;
  }

  protected plainTextStart(content: string, at: number): number {
    const hashes = content.charCodeAt(at + 2) === HASH ? 3 : 2;
    return plainSpacesThenText(content, at + hashes);
  }
}

const DIGIT = new RegExp(PY_D, 'gu');

/** `^(\d+)[.)]\s+(.+)$` */
class NumberedItemPattern extends LinePattern {
  constructor() {
    super(`${PY_D}+[.)]`);
  }

  protected nextMarkerStart(content: string, from: number): number {
    if (isAsciiDigit(content.charCodeAt(from))) return from;
    DIGIT.lastIndex = from;
    if (!DIGIT.test(content)) return -1;
    const after = DIGIT.lastIndex;
    const lowSurrogate = content.charCodeAt(after - 1) >= 0xdc00 && content.charCodeAt(after - 1) <= 0xdfff;
    return lowSurrogate ? after - 2 : after - 1;
  }

  protected secondCharacterFits(): boolean {
    return true;
  }

  protected plainTextStart(content: string, at: number): number {
    let i = at;
    const shortEnd = at + PLAIN_RUN;
    while (isAsciiDigit(content.charCodeAt(i)) && i < shortEnd) i++;
    const code = content.charCodeAt(i);
    if (Number.isNaN(code)) return NO_MATCH; // digits up to the end of the text
    if (i === at || i === shortEnd || code >= 0x80) return ASK_THE_REGEX;
    // A shorter run of digits is followed by a digit, never by `.` or `)`.
    if (code !== 0x2e && code !== 0x29) return NO_MATCH;
    return plainSpacesThenText(content, i + 1);
  }
}

/** A `#` and a whitespace character at the start of a line after the first (the match is at its `\n`). */
const TITLE_LINE_AFTER = new RegExp(`\\n#${PY_S}`, 'g');

/** `^#\s+(.+)$` */
class TitleHeadingPattern extends LinePattern {
  constructor() {
    super('#');
  }

  /**
   * Only a `#` that starts a line and is followed by whitespace can start a title. Found by one
   * regex search rather than line by line: a text of `##` headings (1M lines of `## `) has a `#`
   * at every line start, which cost two searches a line.
   */
  protected nextMarkerStart(content: string, from: number): number {
    if (content.charCodeAt(from) === HASH && isPyWhitespace(content.charCodeAt(from + 1))) return from;
    TITLE_LINE_AFTER.lastIndex = from;
    return TITLE_LINE_AFTER.test(content) ? TITLE_LINE_AFTER.lastIndex - 2 : -1;
  }

  protected secondCharacterFits(code: number): boolean {
    return isPyWhitespace(code);
  }

  protected plainTextStart(content: string, at: number): number {
    return plainSpacesThenText(content, at + 1);
  }
}

const HEADING = new HeadingPattern();
const NUMBERED_ITEM = new NumberedItemPattern();
const TITLE_HEADING = new TitleHeadingPattern();

/**
 * Where the line holding `from` ends (its `\n`, or the end of the text). Short lines, the most
 * common, are read here; a long one is left to indexOf, whose call costs more than a short loop.
 */
function lineEndFrom(content: string, from: number): number {
  const shortEnd = Math.min(content.length, from + 32);
  for (let i = from; i < shortEnd; i++) if (content.charCodeAt(i) === NEWLINE) return i;
  if (shortEnd === content.length) return shortEnd;
  const lineEnd = content.indexOf('\n', shortEnd);
  return lineEnd === -1 ? content.length : lineEnd;
}

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
    this.textStart = pattern.textStart;
    this.end = lineEndFrom(content, this.textStart);
    // The next match starts on a line after this one.
    this.from = this.end + 1;
    return true;
  }
}

/** Where the first match of a scanner's pattern starts, or -1. */
export function firstMatchStart(scanner: LineScanner): number {
  return scanner.next() ? scanner.start : -1;
}
