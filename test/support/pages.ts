import type { TestRuntime } from './runtime';

/** A page of a list-like reply: the list under `K`, the count of all items, and where the next page starts. */
export type Page<K extends string> = Record<K, Array<Record<string, unknown>>> & {
  total: number;
  next_offset: number | null;
  error?: string;
};

/** Follows next_offset from the first page to the last, as a "Next" button would (at most 100 pages). */
export async function walkPages<K extends string>(
  rt: TestRuntime,
  command: string,
  _key: K,
  args: Record<string, unknown>,
): Promise<Array<Page<K>>> {
  const pages: Array<Page<K>> = [];
  let offset: number | null = 0;
  while (offset !== null && pages.length < 100) {
    const page = (await rt.exec(command, { ...args, offset })) as Page<K>;
    expect(page.error).toBeUndefined();
    pages.push(page);
    offset = page.next_offset;
  }
  return pages;
}

export type CursorPage<K extends string> = Page<K> & { next_cursor: string | null };

/**
 * Follows next_cursor from the first page to the last (at most 100 pages); `between` runs after
 * each page, so a test can add rows while a reader pages.
 */
export async function walkCursor<K extends string>(
  rt: TestRuntime,
  command: string,
  _key: K,
  args: Record<string, unknown>,
  between: () => Promise<void> = async () => undefined,
): Promise<Array<CursorPage<K>>> {
  const pages: Array<CursorPage<K>> = [];
  let cursor: string | null = null;
  do {
    const page = (await rt.exec(command, { ...args, ...(cursor !== null && { cursor }) })) as CursorPage<K>;
    expect(page.error).toBeUndefined();
    pages.push(page);
    cursor = page.next_cursor;
    await between();
  } while (cursor !== null && pages.length < 100);
  return pages;
}
