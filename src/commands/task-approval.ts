import { landApproval, type LandedApproval } from '../git/forges/approval';
import { GitError } from '../git/git-errors';
import { CommandError, type CommandContext } from './catalog';

/** approve_task's extra result keys: how the work landed (none when there was nothing to land). */
function landedKeys(landed: LandedApproval | null): Record<string, string | boolean> {
  if (!landed) return {};
  if (landed.via === 'git') return { merged_via: 'git', merged_into: landed.defaultBranch, pushed: landed.pushed };
  return {
    merged_via: landed.via,
    pr_url: landed.prUrl,
    merge_method: landed.method,
    ...(landed.alreadyMerged && { already_merged: true }),
  };
}

/**
 * Before approve_task completes a task, its work lands: the PR/MR is merged on its forge (or,
 * for plain git, the branch merged into the default branch and pushed). A refusal — conflicts,
 * failing checks, gh/glab missing or logged out — is the command's error and the task stays
 * AWAITING_APPROVAL. A task in another status is left to approveTask, which says why not.
 */
export async function landApprovedTask(ctx: CommandContext, taskId: string): Promise<Record<string, string | boolean>> {
  const task = await ctx.db.tasks.get(taskId);
  if (task?.status !== 'AWAITING_APPROVAL') return {};
  const ws = task.workspaceId ? await ctx.db.workspaces.get(task.workspaceId) : null;
  // A plain-git merge checks out branches in the workspace: hold its lock so no run starts there meanwhile.
  const plainGit = ws !== null && !task.prUrl && !(await ctx.git.forgeFor(ws.path).catch(() => null));
  // A task waiting in the merge train holds its workspace already.
  if (plainGit && ws && ws.lockedByTaskId !== taskId && !(await ctx.db.workspaces.acquire(ws.id, taskId, null))) {
    throw new CommandError(
      `Task '${taskId}' was not approved: its workspace '${ws.name}' is busy with another task; approve it again when that one is done.`,
    );
  }
  try {
    const landed = await landApproval(ctx.git, {
      path: ws?.path ?? null,
      branch: task.branchName,
      prUrl: task.prUrl,
      title: task.title,
      body: `${task.title}\n\nTask-Id: ${task.id}`,
    });
    if (landed && landed.via !== 'git' && landed.prUrl !== task.prUrl) await ctx.db.tasks.update(taskId, { prUrl: landed.prUrl });
    return landedKeys(landed);
  } catch (err) {
    if (err instanceof GitError) throw new CommandError(`Task '${taskId}' was not approved: ${err.message}`);
    throw err;
  } finally {
    if (plainGit && ws) await ctx.db.workspaces.release(ws.id, taskId);
  }
}
