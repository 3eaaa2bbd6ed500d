import { assertValidBranchName } from './branch-names';
import { GitError, toGitError } from './git-errors';
import type { GitManager } from './git-manager';
import { checkedOutBranches, hasRemote, isAncestor, keepUnpushedCommits, operationInProgress, refSha } from './repo-state';
import { restoreBranch } from './sync';

export interface PrepareTaskOutcome {
  branch: string;
  /** A new branch was made (false: an existing local or origin branch was reused). */
  created: boolean;
  /** A reused branch was rebased onto the default branch. */
  rebased: boolean;
  /** The local default branch was moved to origin's. */
  defaultUpdated: boolean;
  backupBranch?: string;
  actions: string[];
}

export type MergeTaskOutcome =
  | { status: 'merged'; sha: string; pushed: boolean; rebased: boolean; actions: string[]; backupBranch?: string }
  | { status: 'conflict' | 'push_failed'; message: string; files?: string[]; actions: string[] };

/** The local default branch moved to `target` without a checkout, keeping unpushed commits. */
async function moveDefault(git: GitManager, path: string, defaultBranch: string, target: string): Promise<string | null> {
  const local = await refSha(git, path, `refs/heads/${defaultBranch}`);
  const targetSha = (await refSha(git, path, target))!;
  if (local === targetSha) return null;
  if (!local) {
    await git.run(path, ['branch', '--no-track', defaultBranch, targetSha]);
    return null;
  }
  if ((await checkedOutBranches(git, path)).has(defaultBranch)) {
    if ((await git.currentBranch(path)) !== defaultBranch) return null; // checked out in another worktree
    const backup = await keepUnpushedCommits(git, path, defaultBranch, target);
    await git.run(path, ['reset', '--hard', targetSha]);
    return backup;
  }
  const backup = await keepUnpushedCommits(git, path, defaultBranch, target);
  await git.run(path, ['update-ref', '-m', 'agent-queue: default branch to origin', `refs/heads/${defaultBranch}`, targetSha, local]);
  return backup;
}

/**
 * Gets a workspace ready for a task: fetch (when there is an origin); with a clean tree, move
 * the default branch to origin's; then check out the task branch — reusing a local or origin
 * branch of that name, else creating it from the default branch. A reused branch is rebased
 * onto the default branch when that goes cleanly, and otherwise left exactly as it was.
 */
export async function prepareTaskBranch(
  git: GitManager,
  path: string,
  options: { defaultBranch: string; branch: string },
): Promise<PrepareTaskOutcome> {
  const { defaultBranch, branch } = options;
  assertValidBranchName(defaultBranch);
  assertValidBranchName(branch);
  const actions: string[] = [];
  const origin = await hasRemote(git, path);
  if (origin) {
    await git.fetch(path, { prune: true });
    actions.push('fetched origin');
  }
  const clean = !(await git.hasUncommittedChanges(path));
  const upstream =
    origin && (await refSha(git, path, `refs/remotes/origin/${defaultBranch}`)) ? `refs/remotes/origin/${defaultBranch}` : null;
  let defaultUpdated = false;
  let backupBranch: string | null = null;
  if (clean && upstream) {
    backupBranch = await moveDefault(git, path, defaultBranch, upstream);
    defaultUpdated = (await refSha(git, path, `refs/heads/${defaultBranch}`)) === (await refSha(git, path, upstream));
    if (defaultUpdated) actions.push(`${defaultBranch} at origin/${defaultBranch}`);
    if (backupBranch) actions.push(`unpushed commits of ${defaultBranch} kept on ${backupBranch}`);
  }
  const base = upstream ?? ((await refSha(git, path, `refs/heads/${defaultBranch}`)) ? `refs/heads/${defaultBranch}` : 'HEAD');

  let created = false;
  if (await git.branchExists(path, branch)) {
    if ((await git.currentBranch(path)) !== branch) await git.run(path, ['checkout', branch, '--']);
    actions.push(`reused ${branch}`);
  } else if (origin && (await refSha(git, path, `refs/remotes/origin/${branch}`))) {
    await git.run(path, ['checkout', '-b', branch, `refs/remotes/origin/${branch}`]);
    actions.push(`reused origin/${branch}`);
  } else {
    await git.run(path, ['checkout', '-b', branch, base]);
    created = true;
    actions.push(`created ${branch}`);
  }

  let rebased = false;
  if (!created && clean && base !== 'HEAD' && !(await isAncestor(git, path, base, 'HEAD'))) {
    const before = await git.headSha(path);
    const result = await git.exec(path, [...(await git.identityArgs(path)), 'rebase', base], { okCodes: [1, 2, 128] });
    if (result.code === 0) {
      rebased = true;
      actions.push(`rebased ${branch} onto ${base.replace(/^refs\/(heads|remotes)\//, '')}`);
    } else {
      await restoreBranch(git, path, branch, before);
      actions.push(`rebase onto ${base.replace(/^refs\/(heads|remotes)\//, '')} would conflict; ${branch} left as it was`);
    }
  }
  return { branch, created, rebased, defaultUpdated, ...(backupBranch ? { backupBranch } : {}), actions };
}

/**
 * Lands a finished task: bring the default branch up to origin's, rebase the task branch onto
 * it (a conflict aborts the rebase), merge into the default branch (fast-forward or merge
 * commit) and push the default branch (never forced) when there is an origin and `push` is set.
 * On a conflict or a refused push the workspace is left clean on the task branch, with the
 * task's commits, and the outcome says so; other failures are thrown after the same cleanup.
 */
export async function mergeTaskBranch(
  git: GitManager,
  path: string,
  options: { branch: string; defaultBranch: string; push: boolean },
): Promise<MergeTaskOutcome> {
  const { branch, defaultBranch } = options;
  assertValidBranchName(branch);
  assertValidBranchName(defaultBranch);
  if (branch === defaultBranch) throw new GitError(`The task branch and the default branch are both '${branch}'.`);
  if (!(await git.branchExists(path, branch))) throw new GitError(`Branch '${branch}' not found.`);
  if (await git.hasUncommittedChanges(path))
    throw new GitError('You have uncommitted changes; commit them before merging the task branch.');
  const busy = await operationInProgress(git, path);
  if (busy) throw new GitError(`A ${busy} is in progress; finish or abort it before merging.`);

  const actions: string[] = [];
  const origin = await hasRemote(git, path);
  if (origin) {
    await git.fetch(path, { prune: true });
    actions.push('fetched origin');
  }
  const upstream =
    origin && (await refSha(git, path, `refs/remotes/origin/${defaultBranch}`)) ? `refs/remotes/origin/${defaultBranch}` : null;
  const base = upstream ?? `refs/heads/${defaultBranch}`;
  if (!(await refSha(git, path, base))) throw new GitError(`Branch '${defaultBranch}' not found.`);
  const baseName = upstream ? `origin/${defaultBranch}` : defaultBranch;

  const identity = await git.identityArgs(path);
  const onBranch = async () => {
    if ((await operationInProgress(git, path)) === 'merge') await git.exec(path, ['merge', '--abort'], { okCodes: [1, 128] });
    if ((await git.currentBranch(path)) !== branch || (await git.hasUncommittedChanges(path)))
      await git.run(path, ['checkout', '-f', branch, '--']);
  };

  try {
    if ((await git.currentBranch(path)) !== branch) await git.run(path, ['checkout', branch, '--']);
    let rebased = false;
    if (!(await isAncestor(git, path, base, 'HEAD'))) {
      const before = await git.headSha(path);
      const result = await git.exec(path, [...identity, 'rebase', base], { okCodes: [1, 2, 128] });
      if (result.code !== 0) {
        const files = await git.conflictedFiles(path);
        await restoreBranch(git, path, branch, before);
        actions.push('rebase aborted');
        const where = files.length > 0 ? ` in ${files.join(', ')}` : '';
        return {
          status: 'conflict',
          files,
          actions,
          message: `Merge conflict${where} rebasing '${branch}' onto ${baseName}; the workspace was restored to '${branch}'.`,
        };
      }
      rebased = true;
      actions.push(`rebased ${branch} onto ${baseName}`);
    }

    const backupBranch = upstream ? await moveDefault(git, path, defaultBranch, upstream) : null;
    if (backupBranch) actions.push(`unpushed commits of ${defaultBranch} kept on ${backupBranch}`);
    await git.run(path, ['checkout', defaultBranch, '--']);
    const before = await git.headSha(path);
    const merge = await git.exec(path, [...identity, 'merge', '--no-edit', branch], { okCodes: [1] });
    if (merge.code !== 0) {
      const files = await git.conflictedFiles(path);
      await onBranch();
      return {
        status: 'conflict',
        files,
        actions,
        message: `Merge conflict in ${files.join(', ') || 'the working tree'}; the workspace was restored to '${branch}'.`,
      };
    }
    actions.push(`merged ${branch} into ${defaultBranch}`);

    let pushed = false;
    if (options.push && origin) {
      try {
        await git.push(path, defaultBranch, { setUpstream: false });
        pushed = true;
        actions.push(`pushed ${defaultBranch}`);
      } catch (err) {
        // The merge exists only here; undo it on the default branch (the task branch keeps the work).
        await git.run(path, ['reset', '--hard', before]);
        await onBranch();
        return { status: 'push_failed', actions, message: `${toGitError(err).message}; the workspace was restored to '${branch}'.` };
      }
    }
    return { status: 'merged', sha: await git.headSha(path), pushed, rebased, actions, ...(backupBranch ? { backupBranch } : {}) };
  } catch (err) {
    await onBranch().catch(() => undefined);
    throw toGitError(err);
  }
}
