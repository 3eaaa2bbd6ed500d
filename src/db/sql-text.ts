/** Reading SQL text as the statement preparers do (sqlite-statements.ts, postgres-statements.ts). */

const QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKTICK = 0x60;
const OPEN_BRACKET = 0x5b;
const QUESTION_MARK = 0x3f;
const BACKSLASH = 0x5c;

/**
 * Where the quoted part or comment that starts at `sql[i]` ends (its last character), `i` when
 * none starts there, -1 when one never ends. Quotes of every dialect count (a bracket or a
 * backtick is SQLite's): a reader that sees more quoting than there is only declines more often.
 */
export function skipQuotedOrComment(sql: string, i: number): number {
  const code = sql.charCodeAt(i);
  if (code === QUOTE || code === DOUBLE_QUOTE || code === BACKTICK) return sql.indexOf(sql[i], i + 1);
  if (code === OPEN_BRACKET) return sql.indexOf(']', i + 1);
  if (sql.startsWith('--', i)) {
    const end = sql.indexOf('\n', i);
    return end === -1 ? sql.length : end;
  }
  if (sql.startsWith('/*', i)) {
    const end = sql.indexOf('*/', i + 2);
    return end === -1 ? -1 : end + 1;
  }
  return i;
}

/**
 * The offsets of the `?` that MikroORM's `formatQuery` fills in and the driver would read as its
 * parameters, or null when the two could read `sql` differently: a `?` in quotes or a comment
 * (which `formatQuery` fills in and the driver does not), `??` and `\?` (which `formatQuery` reads
 * otherwise), or what `dialectRefuses` finds at a character outside quotes and comments (the
 * dialect's own parameters and operators).
 */
export function questionMarkOffsets(sql: string, dialectRefuses: (sql: string, i: number) => boolean): number[] | null {
  const offsets: number[] = [];
  for (let i = 0; i < sql.length; i++) {
    const end = skipQuotedOrComment(sql, i);
    if (end === -1) return null;
    if (end !== i) {
      if (sql.slice(i, end).includes('?')) return null;
      i = end;
      continue;
    }
    if (dialectRefuses(sql, i)) return null;
    if (sql.charCodeAt(i) === QUESTION_MARK) {
      if (sql.charCodeAt(i + 1) === QUESTION_MARK || sql.charCodeAt(i - 1) === BACKSLASH) return null;
      offsets.push(i);
    }
  }
  return offsets;
}
