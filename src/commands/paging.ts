import { integer, optional } from './schema';

/**
 * Paging for list-like replies, so no reply grows with history. A caller asks for `limit` items
 * from `offset`; the reply carries the count of all items and `next_offset`, the offset of the
 * next page, or null when this page reaches the end (what a "Next" button needs).
 */
export const offsetField = () => optional(integer('Skip this many items (for the next page; default 0)', { min: 0 }));

export const limitField = (defaultLimit: number, max: number) =>
  optional(integer(`How many items (default ${defaultLimit}, at most ${max})`, { min: 1, max }));

/**
 * How a list command pages its reply, declared on its definition (`list` in catalog.ts) so
 * callers and the catalog-generated tests know which key holds the page and which counts it.
 */
export interface ListPaging {
  /** The result key holding the page. */
  key: string;
  /** The result key counting every item (default `total`). */
  totalKey?: string;
  defaultLimit: number;
  maxLimit: number;
}

/** The `limit` and `offset` input fields of a list command. */
export function pageFields(list: ListPaging) {
  return { limit: limitField(list.defaultLimit, list.maxLimit), offset: offsetField() };
}

export interface PageRequest {
  limit: number;
  offset: number;
}

export function pageOf(args: { limit?: number; offset?: number }, defaultLimit: number): PageRequest {
  return { limit: args.limit ?? defaultLimit, offset: args.offset ?? 0 };
}

/** The offset of the page after one that showed `shown` items from `offset`, or null at the end. */
export function nextOffset(page: PageRequest, shown: number, total: number): number | null {
  const next = page.offset + shown;
  return shown > 0 && next < total ? next : null;
}

/**
 * A page of a list that is already in memory (a folder's entries, say): the slice, the count of
 * all and the next offset. For database lists, page in the query instead.
 */
export function sliceOf<T>(items: T[], page: PageRequest): { items: T[]; total: number; next_offset: number | null } {
  const slice = items.slice(page.offset, page.offset + page.limit);
  return { items: slice, total: items.length, next_offset: nextOffset(page, slice.length, items.length) };
}
