import { integer, optional } from './schema';

/**
 * Paging for list-like replies, so no reply grows with history. A caller asks for `limit` items
 * from `offset`; the reply carries the count of all items and `next_offset`, the offset of the
 * next page, or null when this page reaches the end (what a "Next" button needs).
 */
export const offsetField = () => optional(integer('Skip this many items (for the next page; default 0)', { min: 0 }));

export const limitField = (defaultLimit: number, max: number) =>
  optional(integer(`How many items (default ${defaultLimit}, at most ${max})`, { min: 1, max }));

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
