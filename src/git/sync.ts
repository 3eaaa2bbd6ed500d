import type { GitManager } from './git-manager';
import { GitError } from './git-errors';

export interface SyncResult {
  status: 'synced' | 'conflict' | 'error';
  branch: string | null;
  actions: string[];
  stashed?: boolean;
  auto_committed?: boolean;
  pushed?: boolean;
  rebased?: boolean;
  message?: string;
}

async function isWorktree(git: GitManager, path: string): Promise<boolean> {
  const gitDir = (await git.run(path, ['rev-parse', '--path-format=absolute', '--git-dir'])).trim();
  const common = (await git.run(path, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
  return gitDir !== common;
}

/**
 * Brings one workspace up to date with origin (spec steps 3–7). The default branch is stashed and
 * reset, never pushed; a feature branch is committed, pushed with a lease and rebased, and a
 * conflicting rebase is aborted so the branch stays exactly as it was.
 */
export async function syncWorkspace(git: GitManager, path: string, defaultBranch: string): Promise<SyncResult> {
  const actions: string[] = [];
  await git.fetch(path, { prune: true });
  actions.push('fetched');
  const branch = await git.currentBranch(path);
  if (!branch) return { status: 'error', branch: null, actions, message: 'Detached HEAD: check out a branch first.' };
  if ((await git.conflictedFiles(path)).length > 0) {
    return { status: 'conflict', branch, actions, message: 'The working tree has unresolved merge conflicts.' };
  }
  const dirty = await git.hasUncommittedChanges(path);
  const upstream = `origin/${defaultBranch}`;

  if (branch === defaultBranch) {
    let stashed = false;
    if (dirty) {
      await git.run(path, ['stash', 'push', '--include-untracked', '-m', 'agent-queue sync']);
      stashed = true;
      actions.push('stashed local changes');
    }
    await git.run(path, ['reset', '--hard', upstream]);
    actions.push(`reset to ${upstream}`);
    return { status: 'synced', branch, actions, stashed };
  }

  let autoCommitted = false;
  if (dirty) {
    autoCommitted = (await git.commitAll(path, 'WIP: automatic commit before sync')).committed;
    if (autoCommitted) actions.push('committed local changes');
  }
  await git.push(path, branch, { forceWithLease: true });
  actions.push(`pushed ${branch}`);

  if (await isWorktree(git, path)) {
    await git.run(path, ['update-ref', `refs/heads/${defaultBranch}`, upstream]);
  } else {
    await git.run(path, ['checkout', defaultBranch, '--']);
    await git.run(path, ['reset', '--hard', upstream]);
    await git.run(path, ['checkout', branch, '--']);
  }
  actions.push(`updated ${defaultBranch}`);

  const before = await git.headSha(path);
  try {
    await git.run(path, ['-c', 'user.name=Agent Queue', '-c', 'user.email=agent-queue@localhost', 'rebase', upstream]);
  } catch (err) {
    await git.run(path, ['rebase', '--abort']).catch(() => undefined);
    const after = await git.headSha(path);
    if (after !== before) throw new GitError(`Rebase of '${branch}' failed and the branch could not be restored.`);
    return {
      status: 'conflict',
      branch,
      actions,
      auto_committed: autoCommitted,
      pushed: true,
      rebased: false,
      message: `Rebasing '${branch}' onto ${upstream} conflicts; the rebase was aborted and the branch left as it was.`,
    };
  }
  actions.push(`rebased onto ${upstream}`);
  return { status: 'synced', branch, actions, auto_committed: autoCommitted, pushed: true, rebased: true };
}
