import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { LandingMode } from '../db/value-sets';
import type { BranchUpdate } from '../git/branch-update';
import type { TaskRecord } from '../db/repositories/tasks';
import type { EventLog } from './events';
import { driveTrain, enterTrain, trainOf } from './landing';
import { TaskStateMachine } from './state-machine';
import { promoteWaiting } from './task-moves';
import { errorMessage } from '../util/error-message';

/** The git work around a task run; GitManager provides it (see task-git.ts). */
export interface TaskGit {
  isRepo(path: string): Promise<boolean>;
  detectDefaultBranch(path: string): Promise<string>;
  /** Checks out the task's branch: new from the up-to-date default branch, or (reuse) as it is. */
  prepareTaskBranch(path: string, branch: string, options: { defaultBranch: string; reuse: boolean }): Promise<void>;
  commitAll(path: string, message: string): Promise<{ committed: boolean }>;
  /**
   * Merges into the default branch and pushes; on failure the workspace is restored. It fetches
   * origin first, unless the caller has just done so (`originFetched`).
   */
  mergeTaskBranch(
    path: string,
    branch: string,
    defaultBranch: string,
    options?: { originFetched?: boolean },
  ): Promise<{ merged: true } | { merged: false; message: string }>;
  /** Pushes the branch with --force-with-lease. */
  pushBranch(path: string, branch: string): Promise<void>;
  /** Opens a PR/MR on origin's forge and returns its URL; null when origin is plain git. */
  createPullRequest(path: string, pr: { title: string; body: string; branch: string; base: string }): Promise<string | null>;
  /** Brings the task branch up to the tip of the base (rebase or merge); a conflict is aborted and reported. */
  updateTaskBranch(path: string, branch: string, defaultBranch: string, mode: LandingMode): Promise<BranchUpdate>;
  /** Merges the task's PR/MR through its forge; refused (a GitError in a sentence) while it conflicts or its checks fail or run. */
  landPullRequest(path: string, pr: { branch: string; prUrl: string; title: string; body: string }): Promise<void>;
}

export interface CompletionDeps {
  config: AppConfig;
  db: Database;
  events: EventLog;
  machine: TaskStateMachine;
  git: TaskGit;
  log: (message: string) => void;
}

export interface FinishedRun {
  task: TaskRecord;
  workspacePath: string;
  /** Null when the workspace is not a git repository. */
  branch: string | null;
  defaultBranch: string | null;
  summary: string;
  tokens: number;
  costUsd: number;
  /** Subtasks created from the task's plan, if any. */
  subtasks: Array<{ id: string; title: string }>;
}

/** Promotes tasks that waited on `taskId` and reports each. */
export async function promoteAfter(db: Database, events: EventLog, machine: TaskStateMachine, taskId: string): Promise<void> {
  for (const p of await promoteWaiting(db, machine, taskId)) {
    await events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title, by: taskId } });
  }
}

/** BLOCKED, reported, with the chain of DEFINED tasks it leaves stranded. */
export async function reportBlocked(db: Database, events: EventLog, task: TaskRecord, reason: string): Promise<void> {
  await events.emit('task_blocked', { projectId: task.projectId, taskId: task.id, payload: { title: task.title, reason } });
  const stuck = (await db.tasks.stuckDownstream(task.id)).filter((t) => t.status === 'DEFINED');
  if (stuck.length > 0) {
    await events.emit('chain_stuck', {
      projectId: task.projectId,
      taskId: task.id,
      payload: { title: task.title, stuck_downstream: stuck.map((s) => ({ id: s.id, title: s.title })) },
    });
  }
}

/**
 * A run the agent completed: its leftovers are already committed by the caller. Then, by where
 * the task sits: a plan parent or an intermediate plan step completes on its branch (the last
 * step merges the whole chain); a task needing approval is pushed and gets a pull request; any
 * other task is merged into the default branch and pushed. A failed merge blocks the task.
 */
export async function completeRun(deps: CompletionDeps, run: FinishedRun): Promise<void> {
  const { db, events, machine, git, log } = deps;
  const { task } = run;
  const emitCompleted = async (merged: boolean, extra: Record<string, unknown> = {}) => {
    const moved = await machine.fire(task.id, 'AGENT_COMPLETED', { completedAt: new Date() }, { from: ['IN_PROGRESS'] });
    if (!moved.ok) return;
    await events.emit('task_completed', {
      projectId: task.projectId,
      taskId: task.id,
      agentId: task.assignedAgent,
      payload: {
        title: task.title,
        summary: run.summary,
        tokens: run.tokens,
        cost_usd: run.costUsd,
        branch: run.branch,
        merged,
        ...extra,
      },
    });
    await promoteAfter(db, events, machine, task.id);
  };

  if (!run.branch || !run.defaultBranch) {
    await emitCompleted(false, { note: 'The workspace is not a git repository, so nothing was merged.' });
    return;
  }
  if (run.subtasks.length > 0) {
    await emitCompleted(false, { note: `The plan became ${run.subtasks.length} subtasks; the last one merges the branch.` });
    return;
  }
  if (task.isPlanSubtask && task.parentTaskId && (await db.taskRuns.nextInChain(task.id, task.parentTaskId))) {
    await emitCompleted(false, { note: 'Intermediate plan step: the last step of the chain merges the branch.' });
    return;
  }

  // A task the merge train sent back re-enters it when its follow-up run finishes (already approved).
  const sentBack = (await db.mergeTrain.get(task.id))?.state === 'sent_back';
  if (task.requiresApproval && !sentBack) {
    const notes: string[] = [];
    let prUrl: string | null = null;
    try {
      await git.pushBranch(run.workspacePath, run.branch);
      // A follow-up run updates the PR it already has (the push above) instead of opening another.
      prUrl =
        task.prUrl ??
        (await git.createPullRequest(run.workspacePath, {
          title: task.title,
          body: `${run.summary || task.title}\n\nTask-Id: ${task.id}`,
          branch: run.branch,
          base: run.defaultBranch,
        }));
    } catch (err) {
      notes.push(
        `No pull request was opened: ${errorMessage(err)} Review the branch '${run.branch}' and approve the task when it is right.`,
      );
      log(`Pull request for ${task.id} failed: ${errorMessage(err)}`);
    }
    const moved = await machine.fire(task.id, 'PR_CREATED', { prUrl }, { from: ['IN_PROGRESS'] });
    if (!moved.ok) return;
    const payload = {
      title: task.title,
      pr_url: prUrl,
      branch: run.branch,
      summary: run.summary,
      ...(notes.length && { note: notes.join(' ') }),
    };
    await events.emit('task_awaiting_approval', { projectId: task.projectId, taskId: task.id, payload });
    if (prUrl && prUrl !== task.prUrl)
      await events.emit('pr_created', { projectId: task.projectId, taskId: task.id, payload: { title: task.title, pr_url: prUrl } });
    return;
  }

  // The task waits to land in its repository's merge train (AWAITING_APPROVAL, already approved),
  // and this process lands it at once when the train is free and the task is first in line.
  const queued = await machine.fire(task.id, 'PR_CREATED', {}, { from: ['IN_PROGRESS'] });
  if (!queued.ok) return;
  await enterTrain({ db, events }, task);
  try {
    await driveTrain({ ...deps, machine: new TaskStateMachine(db, log) }, trainOf(task));
  } catch (err) {
    log(`Landing ${task.id} failed: ${errorMessage(err)}; it stays in the merge train.`);
  }
}
