import { LONE_SURROGATE } from '../util/whole-characters';

/**
 * Characters SQLite cannot take in text: MikroORM writes values into the SQL it sends, and
 * SQLite's C API reads that SQL up to the first NUL, so a NUL in a value cuts the statement and
 * fails it with SQL text. A lone UTF-16 surrogate has no UTF-8 form at all.
 */
const UNSTORABLE = new RegExp(`\\0|${LONE_SURROGATE}`, 'g');

/** The replacement character (U+FFFD) stands where an unstorable character was. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/** `text` with every NUL and lone surrogate replaced by U+FFFD; other text is returned as is. */
export function storableText(text: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE, REPLACEMENT_CHARACTER) : text;
}

export function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  return value;
}
