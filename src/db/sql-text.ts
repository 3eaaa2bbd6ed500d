/** Reading SQL text as the statement preparers do (sqlite-statements.ts, postgres-statements.ts). */

const QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKTICK = 0x60;
const OPEN_BRACKET = 0x5b;

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
