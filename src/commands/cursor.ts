import { CommandError } from './catalog';
import { optional, optionalText } from './schema';

/**
 * Keyset paging: a cursor names the last item of a page by its place in the list's order, so the
 * next page starts there through the order index, however deep it is (an offset makes the
 * database walk past every earlier item). It is opaque to callers: base64url of the key's values.
 */
export const cursorField = () =>
  optional(optionalText('Continue after this point (next_cursor from the previous page); faster than offset for deep pages'));

export function encodeCursor(key: readonly number[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The key a cursor names, checked to have `arity` numbers; a CommandError for anything else. */
export function decodeCursor(cursor: string, arity: number, command: string): number[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = null;
  }
  if (!Array.isArray(key) || key.length !== arity || !key.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new CommandError(
      `That cursor is not one ${command} gave. Use next_cursor from its last reply, or leave cursor out to start at the first page.`,
    );
  }
  return key;
}
