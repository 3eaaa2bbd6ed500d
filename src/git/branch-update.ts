import type { LandingMode } from '../db/value-sets';
import { assertValidBranchName } from './branch-names';
import type { GitManager } from './git-manager';
import { operationInProgress, refsPresent } from './repo-state';

export type BranchUpdate =
  /** `originFetched`: origin was fetched for the update, so a merge right after need not fetch again. */
  { status: 'updated'; base: string; originFetched: boolean } | { status: 'conflict'; files: string[]; base: string };

/**
 * Brings the task branch up to date with the tip of origin's default branch (or the local one
 * without origin), by rebase or by merge. On a conflict the operation is aborted and the branch
 * is left where it was, and the conflicting files are the result. A rebase or merge left half
 * done (its lander was killed) is aborted first.
 */
export async function updateBranchToBase(
  git: GitManager,
  path: string,
  options: { branch: string; defaultBranch: string; mode: LandingMode },
): Promise<BranchUpdate> {
  const { branch, defaultBranch, mode } = options;
  assertValidBranchName(branch);
  assertValidBranchName(defaultBranch);
  const hasOrigin = (await git.getRemoteUrl(path).catch(() => null)) !== null;
  if (hasOrigin) await git.fetch(path);
  const originTip = `refs/remotes/origin/${defaultBranch}`;
  const own = `refs/heads/${branch}`;
  // One git process for "is origin's tip here?" and "are we on the branch?".
  const refs = await refsPresent(git, path, [originTip, own]);
  const base = hasOrigin && refs.present.has(originTip) ? `origin/${defaultBranch}` : defaultBranch;
  // A lander killed mid-landing may have left a rebase or merge half done here: start over.
  const stranded = await operationInProgress(git, path);
  if (stranded === 'rebase' || stranded === 'merge') await git.run(path, [stranded, '--abort']);
  // Aborting moves HEAD back, and a branch without commits is not listed: ask HEAD itself then.
  const onBranch = !stranded && refs.present.has(own) ? refs.checkedOut === own : (await git.currentBranch(path)) === branch;
  if (!onBranch) await git.run(path, ['checkout', branch, '--']);
  const identity = await git.identityArgs(path);
  const args = mode === 'rebase' ? ['rebase', base] : ['merge', '--no-edit', base];
  const result = await git.exec(path, [...identity, ...args], { okCodes: [1, 2, 128] });
  if (result.code === 0) return { status: 'updated', base, originFetched: hasOrigin };
  const files = await git.conflictedFiles(path);
  const busy = await operationInProgress(git, path);
  if (busy === 'rebase' || busy === 'merge') await git.run(path, [busy, '--abort']);
  return { status: 'conflict', files, base };
}
