import { stat } from 'node:fs/promises';
import os from 'node:os';
import { GitError } from '../git-errors';
import type { GitManager } from '../git-manager';
import { deleteTaskBranch } from './branch-cleanup';
import type { Forge, ForgeKind, MergeMethod } from './forge';

export interface ApprovalInput {
  /** The workspace the task ran in, or null when it is gone. */
  path: string | null;
  branch: string | null;
  prUrl: string | null;
  /** For a PR/MR opened at approval time (the one at completion could not be). */
  title: string;
  body: string;
}

export type LandedApproval =
  | { via: ForgeKind; prUrl: string; method: MergeMethod; alreadyMerged: boolean; opened: boolean }
  | { via: 'git'; branch: string; defaultBranch: string; pushed: boolean };

async function isDirectory(path: string | null): Promise<boolean> {
  if (!path) return false;
  const info = await stat(path).catch(() => null);
  return Boolean(info?.isDirectory());
}

/** Refuses, in a sentence, a PR/MR that cannot be merged now. */
function assertMergeable(forge: Forge, url: string, view: Awaited<ReturnType<Forge['view']>>): void {
  const what = `The ${forge.noun} ${url}`;
  if (view.state === 'closed') throw new GitError(`${what} was closed without merging; restart the task to redo the work, or skip it.`);
  if (view.conflicts)
    throw new GitError(`${what} has conflicts with its target branch; resolve them (or restart the task) and approve again.`);
  if (view.failingChecks.length > 0) {
    throw new GitError(`${what} has failing checks (${view.failingChecks.join(', ')}); fix them and approve again.`);
  }
  if (view.pendingChecks) throw new GitError(`${what} still has checks running; approve again when they have finished.`);
}

/** The PR/MR the task should have had: opened at approval when completion could not open it. */
async function openNow(git: GitManager, forge: Forge, path: string | null, input: ApprovalInput): Promise<string> {
  if (!path || !input.branch)
    throw new GitError(`No ${forge.noun} was opened for this task and its workspace is gone, so there is nothing to merge.`);
  return forge.open(path, { title: input.title, body: input.body, branch: input.branch, base: await git.detectDefaultBranch(path) });
}

/**
 * Lands an approved task. With a forge (chosen by the PR/MR URL, else by origin's URL) the
 * PR/MR is merged there with the configured method — refused while it conflicts or its checks
 * fail — and the branch deleted; a task whose PR/MR could not be opened earlier gets it now.
 * With plain git the branch is merged into the default branch and pushed, as without approval.
 * Returns null when there is nothing to land (the workspace is not a git repository).
 */
export async function landApproval(git: GitManager, input: ApprovalInput): Promise<LandedApproval | null> {
  const path = input.path && (await isDirectory(input.path)) && (await git.isRepo(input.path)) ? input.path : null;
  const forge = input.prUrl
    ? (git.forges.forChangeUrl(input.prUrl) ?? (path ? await git.forgeFor(path) : null))
    : path
      ? await git.forgeFor(path)
      : null;
  if (input.prUrl && !forge)
    throw new GitError(`Agent Queue cannot tell which forge ${input.prUrl} belongs to; merge it there, then set the task COMPLETED.`);

  if (forge) {
    const cwd = path ?? os.tmpdir();
    const method = git.forges.mergeMethod();
    await forge.assertReady(cwd);
    const opened = !input.prUrl;
    const url = input.prUrl ?? (await openNow(git, forge, path, input));
    const view = await forge.view(cwd, url);
    if (view.state === 'merged') return { via: forge.kind, prUrl: url, method, alreadyMerged: true, opened };
    assertMergeable(forge, url, view);
    await forge.merge(cwd, url, method);
    if (path && input.branch) await deleteTaskBranch(git, path, input.branch).catch(() => undefined);
    return { via: forge.kind, prUrl: url, method, alreadyMerged: false, opened };
  }

  if (!path || !input.branch) return null;
  const defaultBranch = await git.detectDefaultBranch(path);
  if (!(await git.branchExists(path, input.branch)))
    throw new GitError(`The task's branch '${input.branch}' is no longer in its workspace, so there is nothing to merge.`);
  const outcome = await git.mergeTaskBranch(path, { branch: input.branch, defaultBranch, push: true });
  if (outcome.status !== 'merged') throw new GitError(outcome.message);
  return { via: 'git', branch: input.branch, defaultBranch, pushed: outcome.pushed };
}
