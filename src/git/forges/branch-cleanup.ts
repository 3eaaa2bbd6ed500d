import { assertValidBranchName } from '../branch-names';
import type { GitManager } from '../git-manager';

/**
 * Deletes a landed task branch: on origin (a ref update, the working tree is not touched) and
 * locally unless it is checked out. Returns what was deleted; a branch already gone is not an error.
 */
export async function deleteTaskBranch(git: GitManager, path: string, branch: string): Promise<{ remote: boolean; local: boolean }> {
  assertValidBranchName(branch);
  let remote = false;
  let local = false;
  if ((await git.getRemoteUrl(path)) !== null) {
    const listed = await git.exec(path, ['ls-remote', '--heads', 'origin', `refs/heads/${branch}`], { okCodes: [2, 128] });
    if (listed.code === 0 && listed.stdout.trim()) {
      await git.run(path, ['push', 'origin', '--delete', `refs/heads/${branch}`]);
      remote = true;
    }
  }
  if ((await git.branchExists(path, branch)) && (await git.currentBranch(path)) !== branch) {
    await git.run(path, ['branch', '-D', branch]);
    local = true;
  }
  return { remote, local };
}
