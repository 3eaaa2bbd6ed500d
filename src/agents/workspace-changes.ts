import { GitRunner } from '../git/git-runner';

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
export async function workspaceChangedSince(cwd: string, head: string | null): Promise<boolean> {
  if (head === null) return false;
  try {
    const git = new GitRunner(30_000);
    if ((await git.run(cwd, ['status', '--porcelain', '--untracked-files=all'])).trim()) return true;
    return (await git.run(cwd, ['rev-parse', 'HEAD'])).trim() !== head;
  } catch {
    return false;
  }
}
