import { assertValidBranchName, assertValidRefName } from './branch-names';
import { GitError, toGitError } from './git-errors';
import type { GitManager } from './git-manager';
import { operationInProgress, refSha, refsPresent } from './repo-state';

export type MergeOutcome = { status: 'merged' } | { status: 'conflict'; files: string[] };

/**
 * Merges `branch` into the local branch `into` (checked out for it). On a conflict the merge is
 * aborted and the original branch checked out again, so HEAD, index and files are exactly as
 * before; the conflict is a result. A dirty tree is refused before anything happens.
 */
export async function mergeBranch(git: GitManager, path: string, branch: string, into: string): Promise<MergeOutcome> {
  assertValidRefName(branch);
  assertValidBranchName(into);
  if (await git.hasUncommittedChanges(path)) {
    throw new GitError('You have uncommitted changes; commit or stash them before merging.');
  }
  const busy = await operationInProgress(git, path);
  if (busy) throw new GitError(`A ${busy} is in progress; finish or abort it before merging.`);
  if (!(await refSha(git, path, branch))) throw new GitError(`Branch '${branch}' not found.`);
  // One git process for "does `into` exist?" and "which branch are we on?" (ours, when it is `into`).
  const target = `refs/heads/${into}`;
  const refs = await refsPresent(git, path, [target]);
  if (!refs.present.has(target)) throw new GitError(`Branch '${into}' not found.`);

  const original = refs.checkedOut === target ? into : await git.currentBranch(path);
  if (original !== into) await git.run(path, ['checkout', into, '--']);
  const back = async () => {
    if (original && original !== into) await git.run(path, ['checkout', original, '--']);
  };
  const identity = await git.identityArgs(path);
  const result = await git.exec(path, [...identity, 'merge', '--no-edit', branch], { okCodes: [1, 2, 128] });
  if (result.code === 0) return { status: 'merged' };

  const files = await git.conflictedFiles(path);
  if ((await operationInProgress(git, path)) === 'merge') await git.run(path, ['merge', '--abort']);
  await back();
  if (files.length > 0) return { status: 'conflict', files };
  throw toGitError(new Error(`${result.stderr}\n${result.stdout}`), `Could not merge '${branch}' into '${into}'`);
}
