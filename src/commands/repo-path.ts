import { GitError } from '../git/git-errors';
import type { RepoRecord } from '../db/repositories/repos';
import { CommandError, type CommandContext } from './catalog';
import { requireProject } from './projects';

/** Where a repo's checkout is: the linked folder, or the cloned/initialised one. */
export function repoCheckoutPath(repo: RepoRecord): string | null {
  return repo.sourceType === 'link' ? repo.sourcePath : repo.checkoutBasePath;
}

/** The spec's repo path resolution for git commands. */
export async function resolveRepoPath(
  ctx: CommandContext,
  ids: { projectId?: string; repoId?: string },
): Promise<{ path: string; repo: RepoRecord }> {
  if (!ids.projectId && !ids.repoId) throw new CommandError('Give project_id or repo_id to pick a repository.');
  if (ids.projectId) await requireProject(ctx, ids.projectId);
  let repo: RepoRecord | null;
  if (ids.repoId) {
    repo = await ctx.db.repos.get(ids.repoId);
    if (!repo) throw new CommandError(`Repo '${ids.repoId}' not found.`);
    // A project's commands act on that project's repos only (and its channel's people see them).
    if (ids.projectId && repo.projectId !== ids.projectId) {
      throw new CommandError(
        `Repo '${repo.id}' belongs to project '${repo.projectId}', not '${ids.projectId}'. Pick one of its repos (/aq list_repos project_id=${ids.projectId}).`,
      );
    }
  } else {
    [repo] = await ctx.db.repos.list(ids.projectId);
  }
  if (!repo) {
    throw new CommandError(
      `Project '${ids.projectId}' has no repository. Add a workspace with /aq add_workspace (or a repository with /aq add_repo).`,
    );
  }
  const path = repoCheckoutPath(repo);
  if (!path) throw new CommandError(`Repo '${repo.id}' has no checkout path.`);
  await assertGitRepo(ctx, path);
  return { path, repo };
}

export async function assertGitRepo(ctx: CommandContext, path: string): Promise<void> {
  await gitStep(() => ctx.git.assertRepo(path));
}

/** Runs git work, turning git failures into command errors (one sentence). */
export async function gitStep<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof GitError) throw new CommandError(err.message);
    throw err;
  }
}

/** The checked-out branch, or a CommandError on a detached HEAD. */
export async function currentBranchOrFail(ctx: CommandContext, path: string): Promise<string> {
  const branch = await gitStep(() => ctx.git.currentBranch(path));
  if (!branch) throw new CommandError('Cannot tell the current branch (detached HEAD); give the branch name.');
  return branch;
}

/** The spec's non-blocking warning when agents are running in the project. */
export async function inProgressWarning(ctx: CommandContext, projectId: string | undefined): Promise<string | null> {
  if (!projectId) return null;
  const n = await ctx.db.tasks.countInStatus('IN_PROGRESS', projectId);
  return n > 0 ? `⚠️ ${n} task(s) currently IN_PROGRESS for this project — this operation may disrupt running agent(s).` : null;
}
