/**
 * Runs work one at a time per key, in this process. Task merges of one project go through it:
 * two workspaces merging and pushing the default branch at once would race, and the loser's push
 * would be refused (origin moved), blocking a task that merges cleanly a moment later.
 */
const tails = new Map<string, Promise<unknown>>();

export async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
