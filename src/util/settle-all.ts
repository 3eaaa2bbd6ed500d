/**
 * Promise.all that answers only once every promise has settled: with their values, or with the
 * first rejection in the list's order. Promise.all rejects at the first failure and leaves the
 * others running, so a command that failed fast (a task not found) still had queries in flight
 * after it answered; `aq exec -` then ran the next command, or closed the database, beside them
 * (with its one connection, the close waited on them forever).
 */
export async function settleAll<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(values);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}
