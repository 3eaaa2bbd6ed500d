import { GitRunner } from '../git/git-runner';
import { everyWriteRefused, WRITE_TOOLS, type Refusal } from './confinement';

/** Where the workspace's HEAD stood when a run started: null where git cannot tell (not a repository, no commit). */
export async function workspaceHead(cwd: string): Promise<string | null> {
  try {
    return (await new GitRunner(30_000).run(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD'])).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Whether the workspace changed since the run started at `head` (workspaceHead) by any means, the
 * agent's shell or its own process included: uncommitted changes, or HEAD moved (a commit). False
 * where git could not tell at the start, so a run whose every file tool write was refused is
 * judged by those alone there.
 */
async function workspaceChangedSince(cwd: string, head: string | null): Promise<boolean> {
  if (head === null) return false;
  try {
    const git = new GitRunner(30_000);
    if ((await git.run(cwd, ['status', '--porcelain', '--untracked-files=all'])).trim()) return true;
    return (await git.run(cwd, ['rev-parse', 'HEAD'])).trim() !== head;
  } catch {
    return false;
  }
}

/**
 * Why a run that finished is a failure after all, for every backend: its file tools had writes
 * refused and made none (`writesMade`), and git sees no change since it started at `startHead`
 * either; null when it did change something.
 */
export async function nothingChangedFailure(
  refusals: Refusal[],
  writesMade: number,
  cwd: string,
  startHead: string | null,
): Promise<string | null> {
  const refusedWrites = refusals.filter((r) => WRITE_TOOLS.has(r.tool));
  if (refusedWrites.length === 0 || writesMade > 0 || (await workspaceChangedSince(cwd, startHead))) return null;
  return everyWriteRefused(refusedWrites, cwd);
}
