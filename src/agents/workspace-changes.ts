import { GitRunner } from '../git/git-runner';

/**
 * Whether the workspace changed since `since` by any means, the agent's shell or its own process
 * included: uncommitted changes, or a commit made since. False where git cannot tell (not a
 * repository), so a run whose every file tool write was refused is judged by those alone there.
 */
export async function workspaceChangedSince(cwd: string, since: Date): Promise<boolean> {
  const git = new GitRunner(30_000);
  try {
    if ((await git.run(cwd, ['status', '--porcelain', '--untracked-files=all'])).trim()) return true;
    const made = await git.run(cwd, ['rev-list', '--count', `--since=${Math.floor(since.getTime() / 1000)}`, 'HEAD']);
    return Number(made.trim()) > 0;
  } catch {
    return false;
  }
}
