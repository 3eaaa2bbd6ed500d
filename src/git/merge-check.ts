import type { GitManager } from './git-manager';

export interface BranchConflict {
  branch: string;
  conflictingFiles: string[];
  /** How many commits of the default branch the branch does not have, as text. */
  commitsBehindMain: string;
}

/**
 * Remote branches of origin that would conflict with the default branch, found by a simulated
 * three-way merge (`git merge-tree --write-tree`): neither the working tree nor the index is
 * touched. Skips the default branch, HEAD and dependabot/ branches. Call after a fetch.
 */
export async function findBranchConflicts(git: GitManager, path: string, defaultBranch: string): Promise<BranchConflict[]> {
  const refs = (await git.run(path, ['for-each-ref', '--format=%(refname:short)', 'refs/remotes/origin'])).split('\n').filter(Boolean);
  const base = `origin/${defaultBranch}`;
  const conflicts: BranchConflict[] = [];
  for (const ref of refs) {
    const branch = ref.replace(/^origin\//, '');
    if (ref === 'origin' || branch === 'HEAD' || branch === defaultBranch || branch.startsWith('dependabot/')) continue;
    // Exit code 1 with conflict lines means a conflict; simple-git resolves when stderr is empty.
    const out = await git.run(path, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, ref]).catch((err: Error) => err.message);
    const lines = out.split('\n');
    const files = lines.slice(1).filter((l) => l.trim() !== '');
    if (files.length === 0) continue;
    const behind = (await git.run(path, ['rev-list', '--count', `${ref}..${base}`])).trim();
    conflicts.push({ branch, conflictingFiles: [...new Set(files)], commitsBehindMain: behind });
  }
  return conflicts;
}
