import { stat } from 'node:fs/promises';
import type { TrainEntry } from '../db/repositories/merge-train';
import type { TaskRecord } from '../db/repositories/tasks';
import type { WorkspaceRecord } from '../db/repositories/workspaces';
import { landApproval, type LandedApproval } from '../git/forges/approval';
import { GitError } from '../git/git-errors';
import { driveTrain, enterTrain, trainOf } from '../orchestrator/landing';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { GitManagerTaskGit } from '../orchestrator/task-git';
import { CommandError, type CommandContext } from './catalog';
import { errorDetails } from './error-text';
import { mergeQueueKeys, type MergeQueuePlace } from './merge-train';

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

const STATE_WORDS: Record<string, string> = {
  waiting: 'waiting',
  updating: 'being brought up to date',
  checking: 'being checked',
  merging: 'being merged',
  sent_back: 'sent back to its agent',
};

function alreadyQueued(taskId: string, entry: TrainEntry): string {
  return `Task '${taskId}' is already approved and queued for landing (#${entry.place} in the merge train, ${STATE_WORDS[entry.state] ?? entry.state}); it lands when its turn comes, so there is nothing more to approve.`;
}

/** The workspace the task's branch lives in, when there is one to land from. */
async function landingWorkspace(ctx: CommandContext, task: TaskRecord): Promise<WorkspaceRecord | null> {
  const ws = task.workspaceId ? await ctx.db.workspaces.get(task.workspaceId) : null;
  if (!ws || !task.branchName) return null;
  const isDir = (await stat(ws.path).catch(() => null))?.isDirectory() ?? false;
  return isDir && (await ctx.git.isRepo(ws.path)) ? ws : null;
}

/**
 * A task on a forge lands through its PR/MR: gh/glab must be ready (else the approval is refused,
 * saying what to do), and a task whose PR could not be opened at completion gets it now.
 */
async function readyForge(ctx: CommandContext, task: TaskRecord, path: string, branch: string): Promise<string | null> {
  const forge = task.prUrl
    ? (ctx.git.forges.forChangeUrl(task.prUrl) ?? (await ctx.git.forgeFor(path)))
    : await ctx.git.forgeFor(path).catch(() => null);
  if (!forge) {
    if (task.prUrl)
      throw new GitError(`Agent Queue cannot tell which forge ${task.prUrl} belongs to; merge it there, then set the task COMPLETED.`);
    return null;
  }
  await forge.assertReady(path);
  if (task.prUrl) return task.prUrl;
  await ctx.git.push(path, branch, { forceWithLease: true });
  const prUrl = await forge.open(path, {
    title: task.title,
    body: `${task.title}\n\nTask-Id: ${task.id}`,
    branch,
    base: await ctx.git.detectDefaultBranch(path),
  });
  await ctx.db.tasks.update(task.id, { prUrl });
  return prUrl;
}

/** approve_task's keys for a task queued to land: where it stands now, and a sentence saying it. */
export interface QueuedApproval {
  [key: string]: unknown;
  title: string;
  queued_for_landing: true;
  status: string;
  landed: boolean;
  landing: string;
  merge_queue?: MergeQueuePlace;
  pr_url?: string;
}

function landingSentence(status: string, place: MergeQueuePlace | undefined): string {
  if (status === 'COMPLETED') return 'It landed and is completed.';
  if (place?.state === 'sent_back')
    return `It could not land yet and was sent back to its agent: ${(place.last_outcome ?? '').split('\n')[0]}`;
  if (place) return `Queued for landing: #${place.place} in the merge train.`;
  if (status === 'BLOCKED') return 'It could not land and is BLOCKED; see the task for why.';
  return `Queued for landing; the task is ${status} now.`;
}

/**
 * Approve means "queue for landing": a task with work to land joins its repository's merge train
 * (already approved, still AWAITING_APPROVAL) and completes when the train lands it, after the
 * project's check. The train is driven once here, as completion does, unless a check command is
 * set and a daemon runs to land it (a check may take minutes; Slack's reply must not wait on it).
 * Null when the task has nothing to land from a workspace (approveTask completes it at once) or
 * is not AWAITING_APPROVAL (approveTask says why not).
 */
export async function queueApprovedTask(ctx: CommandContext, taskId: string): Promise<QueuedApproval | null> {
  const task = await ctx.db.tasks.get(taskId);
  if (task?.status !== 'AWAITING_APPROVAL') return null;
  const before = await ctx.db.mergeTrain.get(taskId);
  if (before) throw new CommandError(alreadyQueued(taskId, before));
  const ws = await landingWorkspace(ctx, task);
  if (!ws || !task.branchName) return null;
  let prUrl: string | null;
  try {
    prUrl = await readyForge(ctx, task, ws.path, task.branchName);
  } catch (err) {
    if (err instanceof GitError) throw new CommandError(`Task '${taskId}' was not approved: ${err.message}`);
    throw err;
  }
  // It keeps its workspace while it waits, as a completed task does, so no other task starts there meanwhile.
  const acquired = ws.lockedByTaskId !== taskId && (await ctx.db.workspaces.acquire(ws.id, taskId, null));
  const entry = await enterTrain(ctx, task, { onlyIfAbsent: true, approvedBy: ctx.actor.userId ?? null });
  if (!entry) {
    if (acquired) await ctx.db.workspaces.release(ws.id, taskId);
    const now = await ctx.db.mergeTrain.get(taskId);
    throw new CommandError(now ? alreadyQueued(taskId, now) : `Task '${taskId}' was already handled by someone else.`);
  }
  const project = await ctx.db.projects.get(task.projectId);
  if (!project?.checkCommand || !(await ctx.orchestrator.daemonRunning())) {
    const git = new GitManagerTaskGit(ctx.git);
    const deps = { db: ctx.db, events: ctx.events, git, config: ctx.config, log: ctx.log, machine: new TaskStateMachine(ctx.db, ctx.log) };
    await driveTrain(deps, trainOf(task)).catch((err: unknown) =>
      ctx.log(`Landing ${taskId} failed; it stays in the merge train: ${errorDetails(err)}`),
    );
  }
  const status = (await ctx.db.tasks.get(taskId))?.status ?? 'DELETED';
  const { merge_queue } = await mergeQueueKeys(ctx, taskId);
  return {
    title: task.title,
    queued_for_landing: true,
    status,
    landed: status === 'COMPLETED',
    landing: landingSentence(status, merge_queue),
    ...(merge_queue && { merge_queue }),
    ...(prUrl && { pr_url: prUrl }),
  };
}

/**
 * A task whose workspace is gone but whose PR/MR is open is merged on its forge at once (there
 * is no workspace for the train to land it from); a refusal is the command's error and the task
 * stays AWAITING_APPROVAL. Without a PR there is nothing to land, and no keys.
 */
export async function landApprovedTask(ctx: CommandContext, taskId: string): Promise<Record<string, string | boolean>> {
  const task = await ctx.db.tasks.get(taskId);
  if (task?.status !== 'AWAITING_APPROVAL' || !task.prUrl) return {};
  try {
    const landed = await landApproval(ctx.git, {
      path: null,
      branch: task.branchName,
      prUrl: task.prUrl,
      title: task.title,
      body: `${task.title}\n\nTask-Id: ${task.id}`,
    });
    return landedKeys(landed);
  } catch (err) {
    if (err instanceof GitError) throw new CommandError(`Task '${taskId}' was not approved: ${err.message}`);
    throw err;
  }
}
