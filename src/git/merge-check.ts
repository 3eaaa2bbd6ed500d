import { assertValidBranchName } from './branch-names';
import { GitError } from './git-errors';
import type { GitManager } from './git-manager';
import { refSha } from './repo-state';

export interface BranchConflict {
  branch: string;
  conflictingFiles: string[];
  /** How many commits of the default branch the branch does not have, as text (spec's type). */
  commitsBehindMain: string;
}

/** Branches a conflict scan leaves alone: the default branch, origin/HEAD and dependabot's. */
export function isScannedBranch(branch: string, defaultBranch: string): boolean {
  return branch !== 'HEAD' && branch !== defaultBranch && !branch.startsWith('dependabot/');
}

/**
 * Remote branches of origin that would conflict with the default branch, found by a simulated
 * three-way merge from their merge base (`git merge-tree --write-tree`, which exits 1 and names
 * the conflicted files on a conflict). Neither the working tree nor the index is touched, and no
 * object outside the object store is written. Call after a fetch.
 */
export async function findBranchConflicts(git: GitManager, path: string, defaultBranch: string): Promise<BranchConflict[]> {
  assertValidBranchName(defaultBranch);
  const base = `refs/remotes/origin/${defaultBranch}`;
  if (!(await refSha(git, path, base))) throw new GitError(`origin has no branch '${defaultBranch}'.`);
  const refs = (await git.run(path, ['for-each-ref', '--format=%(refname)', 'refs/remotes/origin/'])).split('\n').filter(Boolean);
  const conflicts: BranchConflict[] = [];
  for (const ref of refs) {
    const branch = ref.slice('refs/remotes/origin/'.length);
    if (!isScannedBranch(branch, defaultBranch)) continue;
    const out = await git.exec(path, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, ref], { okCodes: [1, 128] });
    // 0: merges cleanly; 128: no common history (nothing to simulate), so not reported.
    if (out.code !== 1) continue;
    // First line: the tree id; then one conflicted path per line.
    const files = [
      ...new Set(
        out.stdout
          .split('\n')
          .slice(1)
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    ];
    const behind = (await git.run(path, ['rev-list', '--count', `${ref}..${base}`])).trim();
    conflicts.push({ branch, conflictingFiles: files, commitsBehindMain: behind });
  }
  return conflicts;
}
