import { CommandError } from './catalog';
import { nextOffset, pageFields, type ListPaging, type PageRequest } from './paging';
import { optional, optionalText } from './schema';

/**
 * Keyset paging: a cursor names the last item of a page by its place in the list's order, so the
 * next page starts there through the order index, however deep it is (an offset makes the
 * database walk past every earlier item). It is opaque to callers: base64url of the key's values.
 */
export const cursorField = () =>
  optional(optionalText('Continue after this point (next_cursor from the previous page); faster than offset for deep pages'));

/** The `limit`, `offset` and `cursor` input fields of a list command that pages both ways. */
export function cursorPageFields(list: ListPaging) {
  return { ...pageFields(list), cursor: cursorField() };
}

type KeyPart = 'number' | 'string';
type KeyOf<S extends readonly KeyPart[]> = { -readonly [I in keyof S]: S[I] extends 'number' ? number : string };

export function encodeCursor(key: ReadonlyArray<number | string>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * The key a cursor names, checked to have `arity` numbers (or the types of `shape`, one per
 * place); a CommandError for anything else.
 */
export function decodeCursor(cursor: string, arity: number, command: string): number[];
export function decodeCursor<const S extends readonly KeyPart[]>(cursor: string, shape: S, command: string): KeyOf<S>;
export function decodeCursor(cursor: string, shape: number | readonly KeyPart[], command: string): Array<number | string> {
  const types: readonly KeyPart[] = typeof shape === 'number' ? Array.from({ length: shape }, () => 'number' as const) : shape;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = null;
  }
  const fits = (v: unknown, type: KeyPart) => (type === 'number' ? typeof v === 'number' && Number.isFinite(v) : typeof v === 'string');
  if (!Array.isArray(key) || key.length !== types.length || !key.every((v, i) => fits(v, types[i]))) {
    throw new CommandError(
      `That cursor is not one ${command} gave. Use next_cursor from its last reply, or leave cursor out to start at the first page.`,
    );
  }
  return key;
}

/** Refuses a request that gives both ways of saying where a page starts. */
export function oneStartOnly(args: { offset?: number; cursor?: string }): void {
  if (args.cursor !== undefined && args.offset !== undefined) throw new CommandError('Give either offset or cursor, not both.');
}

/**
 * Where the pages after this one start: `next_offset` (null at the end, and on a page reached by
 * cursor, whose offset is not known: follow next_cursor from there) and `next_cursor`, the key
 * of the last item shown while more follow (`more`: the query asked for one item beyond the page).
 */
export function nextPageOf(
  page: PageRequest,
  shown: { count: number; total: number; more: boolean; lastKey: ReadonlyArray<number | string> | undefined; byCursor: boolean },
): { next_offset: number | null; next_cursor: string | null } {
  return {
    next_offset: shown.byCursor ? null : nextOffset(page, shown.count, shown.total),
    next_cursor: shown.more && shown.lastKey ? encodeCursor(shown.lastKey) : null,
  };
}
