import { assertValidBranchName } from './branch-names';
import type { GitManager } from './git-manager';
import { checkedOutBranches, hasRemote, isAncestor, isWorktree, keepUnpushedCommits, operationInProgress, refSha } from './repo-state';
import { isConflict } from './status';

export interface SyncOutcome {
  status: 'synced' | 'conflict' | 'error';
  /** The branch that was checked out (null on a detached HEAD). */
  branch: string | null;
  /** What was done, in order, in words. */
  actions: string[];
  stashed?: boolean;
  autoCommitted?: boolean;
  pushed?: boolean;
  rebased?: boolean;
  /** Unpushed commits of the default branch were kept on this branch before it was reset. */
  backupBranch?: string;
  message?: string;
}

const AUTO_COMMIT_MESSAGE = 'WIP: automatic commit before sync';

/**
 * sync_workspaces steps 3–7 for one workspace. The default branch is stashed (the stash is kept)
 * and hard-reset to origin, and is never pushed. A feature branch is auto-committed, pushed with
 * a lease, and rebased onto origin's default branch; a conflicting rebase is aborted and the
 * branch left exactly as it was. No commit is ever lost: unpushed commits of the default branch
 * go to a backup branch before a reset, and a feature branch whose origin copy holds commits
 * this workspace lacks is not force-pushed.
 */
export async function syncWorkspaceSteps(git: GitManager, path: string, defaultBranch: string): Promise<SyncOutcome> {
  assertValidBranchName(defaultBranch);
  const actions: string[] = [];
  if (!(await hasRemote(git, path)))
    return { status: 'error', branch: await git.currentBranch(path), actions, message: 'The workspace has no origin remote to sync with.' };
  await git.fetch(path, { prune: true });
  actions.push('fetched origin (pruned)');

  const branch = await git.currentBranch(path);
  if (!branch) return { status: 'error', branch: null, actions, message: 'HEAD is detached; check out a branch before syncing.' };
  const entries = await git.porcelainStatus(path);
  const conflicted = entries.filter(isConflict).map((e) => e.path);
  if (conflicted.length > 0) {
    return {
      status: 'conflict',
      branch,
      actions,
      message: `Unresolved merge conflicts in ${conflicted.join(', ')}; resolve them before syncing.`,
    };
  }
  const busy = await operationInProgress(git, path);
  if (busy) return { status: 'error', branch, actions, message: `A ${busy} is in progress; finish or abort it before syncing.` };
  const upstream = `refs/remotes/origin/${defaultBranch}`;
  if (!(await refSha(git, path, upstream)))
    return { status: 'error', branch, actions, message: `origin has no branch '${defaultBranch}'.` };

  const dirty = entries.length > 0;
  return branch === defaultBranch
    ? syncDefault(git, path, defaultBranch, dirty, actions)
    : syncFeature(git, path, branch, defaultBranch, dirty, actions);
}

async function syncDefault(git: GitManager, path: string, branch: string, dirty: boolean, actions: string[]): Promise<SyncOutcome> {
  const upstream = `refs/remotes/origin/${branch}`;
  let stashed = false;
  if (dirty) {
    const identity = await git.identityArgs(path);
    await git.run(path, [...identity, 'stash', 'push', '--include-untracked', '-m', `agent-queue sync ${new Date().toISOString()}`]);
    stashed = true;
    actions.push('stashed uncommitted changes (kept as stash@{0})');
  }
  const backupBranch = await keepUnpushedCommits(git, path, branch, upstream);
  if (backupBranch) actions.push(`kept unpushed commits of ${branch} on ${backupBranch}`);
  await git.run(path, ['reset', '--hard', upstream]);
  actions.push(`reset ${branch} to origin/${branch}`);
  return { status: 'synced', branch, actions, stashed, pushed: false, ...(backupBranch ? { backupBranch } : {}) };
}

async function syncFeature(
  git: GitManager,
  path: string,
  branch: string,
  defaultBranch: string,
  dirty: boolean,
  actions: string[],
): Promise<SyncOutcome> {
  const upstream = `refs/remotes/origin/${defaultBranch}`;
  let autoCommitted = false;
  if (dirty) {
    autoCommitted = (await git.commitAll(path, AUTO_COMMIT_MESSAGE)).committed;
    if (autoCommitted) actions.push('committed uncommitted changes');
  }

  // Push with a lease on the sha just fetched. A diverged origin copy is force-pushed only when
  // every commit on it is already here (by patch), which is what an earlier rebase leaves.
  const head = await git.headSha(path);
  const remote = await refSha(git, path, `refs/remotes/origin/${branch}`);
  let pushed = false;
  if (remote === head) {
    actions.push(`origin/${branch} already up to date`);
  } else {
    if (remote && !(await isAncestor(git, path, remote, head))) {
      const missing = (await git.run(path, ['cherry', 'HEAD', remote])).split('\n').filter((l) => l.startsWith('+')).length;
      if (missing > 0) {
        return {
          status: 'conflict',
          branch,
          actions,
          autoCommitted,
          pushed: false,
          rebased: false,
          message: `origin/${branch} has ${missing} commit(s) this workspace does not have; not pushing or rebasing (pull them first).`,
        };
      }
    }
    await git.push(path, branch, { forceWithLease: { expected: remote ?? '' } });
    pushed = true;
    actions.push(`pushed ${branch} (force-with-lease)`);
  }

  actions.push(await updateLocalDefault(git, path, branch, defaultBranch));

  if (await isAncestor(git, path, upstream, 'HEAD')) {
    actions.push(`already contains origin/${defaultBranch}`);
    return { status: 'synced', branch, actions, autoCommitted, pushed, rebased: false };
  }
  const before = await git.headSha(path);
  const identity = await git.identityArgs(path);
  const rebase = await git.exec(path, [...identity, 'rebase', upstream], { okCodes: [1, 2, 128] });
  if (rebase.code !== 0) {
    const files = await git.conflictedFiles(path);
    await restoreBranch(git, path, branch, before);
    const where = files.length > 0 ? ` (conflicts in ${files.join(', ')})` : '';
    actions.push('rebase aborted; branch left as it was');
    return {
      status: 'conflict',
      branch,
      actions,
      autoCommitted,
      pushed,
      rebased: false,
      message: `Rebasing '${branch}' onto origin/${defaultBranch} conflicts${where}; the rebase was aborted and the branch left as it was.`,
    };
  }
  actions.push(`rebased ${branch} onto origin/${defaultBranch}`);
  return { status: 'synced', branch, actions, autoCommitted, pushed, rebased: true };
}

/**
 * Moves the local default branch to origin's. In a worktree, and whenever the default branch
 * is checked out in another worktree, a checkout is impossible, so it is a reference update
 * (skipped when that other worktree has it checked out: moving a branch under a checkout
 * would make its files look changed). Unpushed commits are kept on a backup branch first.
 */
async function updateLocalDefault(git: GitManager, path: string, branch: string, defaultBranch: string): Promise<string> {
  const upstream = `refs/remotes/origin/${defaultBranch}`;
  const target = (await refSha(git, path, upstream))!;
  const local = await refSha(git, path, `refs/heads/${defaultBranch}`);
  if (!local) {
    await git.run(path, ['branch', '--no-track', defaultBranch, target]);
    return `created ${defaultBranch} at origin/${defaultBranch}`;
  }
  if (local === target) return `${defaultBranch} already at origin/${defaultBranch}`;
  const elsewhere = (await checkedOutBranches(git, path)).get(defaultBranch);
  if (elsewhere) return `left ${defaultBranch} alone (checked out in ${elsewhere})`;
  const backup = await keepUnpushedCommits(git, path, defaultBranch, upstream);
  const kept = backup ? `; unpushed commits kept on ${backup}` : '';
  if (await isWorktree(git, path)) {
    await git.run(path, ['update-ref', '-m', 'agent-queue sync', `refs/heads/${defaultBranch}`, target, local]);
    return `moved ${defaultBranch} to origin/${defaultBranch} (reference update)${kept}`;
  }
  await git.run(path, ['checkout', defaultBranch, '--']);
  try {
    await git.run(path, ['reset', '--hard', upstream]);
  } finally {
    await git.run(path, ['checkout', branch, '--']);
  }
  return `reset ${defaultBranch} to origin/${defaultBranch}${kept}`;
}

/** After a failed rebase: abort it, and make sure the branch, HEAD and files are as before. */
export async function restoreBranch(git: GitManager, path: string, branch: string, sha: string): Promise<void> {
  if ((await operationInProgress(git, path)) === 'rebase') await git.exec(path, ['rebase', '--abort'], { okCodes: [1, 128] });
  if ((await git.currentBranch(path)) !== branch || (await git.headSha(path)) !== sha || (await git.hasUncommittedChanges(path))) {
    // The tree was clean before the rebase (everything was committed), so nothing is lost here.
    await git.run(path, ['checkout', '-f', branch, '--']);
    await git.run(path, ['reset', '--hard', sha]);
  }
}

/** A workspace's sync as sync_workspaces reports it: the outcome, its two flags in the result's own words. */
export type SyncReport = Omit<SyncOutcome, 'autoCommitted' | 'backupBranch'> & { auto_committed?: boolean; backup_branch?: string };

/** The old module-level entry point, with the wire format's snake_case keys (sync_workspaces). */
export async function syncWorkspace(git: GitManager, path: string, defaultBranch: string): Promise<SyncReport> {
  const { autoCommitted, backupBranch, ...rest } = await syncWorkspaceSteps(git, path, defaultBranch);
  return {
    ...rest,
    ...(autoCommitted !== undefined ? { auto_committed: autoCommitted } : {}),
    ...(backupBranch ? { backup_branch: backupBranch } : {}),
  };
}
