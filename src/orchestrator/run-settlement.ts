import type { TaskRecord } from '../db/repositories/tasks';
import { totalAgentTokens, type AgentRunOutcome } from '../agents/adapter';
import { createTasksFromPlan } from './auto-task';
import { completeRun } from './completion';
import { pauseForRateLimit } from './rate-limit-pause';
import { failRun } from './run-failure';
import type { RunnerDeps } from './runner-deps';
import { errorMessage } from '../util/error-message';

export interface SettleContext {
  workspacePath: string;
  branch: string | null;
  defaultBranch: string | null;
  runStartedAt: Date;
  aborted: boolean;
}

/** Moves the task on by how its run ended: back to the queue, paused, failed, or completed. */
export async function settle(deps: RunnerDeps, task: TaskRecord, outcome: AgentRunOutcome, ctx: SettleContext): Promise<void> {
  if (outcome.status === 'aborted' || ctx.aborted) return settleStopped(deps, task);
  if (outcome.status === 'rate_limited') return pauseForRateLimit(deps, task, outcome);
  if (outcome.status === 'failed') return failRun(deps, task, outcome.errorMessage ?? 'The agent failed without a message.');
  return settleCompleted(deps, task, outcome, ctx);
}

/**
 * Stopped by a person (the task already left IN_PROGRESS) or by shutdown (back to the queue),
 * perhaps while its agent waited for an answer.
 */
async function settleStopped(deps: RunnerDeps, task: TaskRecord): Promise<void> {
  const { db, events, machine } = deps;
  const status = (await db.tasks.get(task.id))?.status;
  if (status !== 'IN_PROGRESS' && status !== 'WAITING_INPUT') return;
  const back = await machine.fire(task.id, 'RECOVERY', { assignedAgent: null }, { from: ['IN_PROGRESS', 'WAITING_INPUT'] });
  if (back.ok) {
    await events.emit('task_retrying', {
      projectId: task.projectId,
      taskId: task.id,
      payload: {
        title: task.title,
        reason: 'the daemon stopped during the run',
        retry_count: task.retryCount,
        max_retries: task.maxRetries,
      },
    });
  }
}

/** A completed run: its leftovers committed, its plan (if any) turned into subtasks, then completion. */
async function settleCompleted(deps: RunnerDeps, task: TaskRecord, outcome: AgentRunOutcome, ctx: SettleContext): Promise<void> {
  const { db, events, machine, log } = deps;
  let subtasks: Array<{ id: string; title: string }> = [];
  if (ctx.branch) {
    try {
      await deps.git.commitAll(ctx.workspacePath, `agent: ${task.title}\n\nTask-Id: ${task.id}`);
    } catch (err) {
      log(`Commit after ${task.id} failed: ${errorMessage(err)}`);
    }
  }
  try {
    const plan = await createTasksFromPlan(
      { db, events, config: deps.config, chatProvider: deps.chatProvider, commitAll: (p, m) => deps.git.commitAll(p, m), log },
      task,
      ctx.workspacePath,
      ctx.runStartedAt,
    );
    if (plan.kind === 'created') subtasks = plan.tasks;
  } catch (err) {
    log(`Plan handling after ${task.id} failed: ${errorMessage(err)}`);
  }
  await completeRun(
    { config: deps.config, db, events, machine, git: deps.git, log },
    {
      task,
      workspacePath: ctx.workspacePath,
      branch: ctx.branch,
      defaultBranch: ctx.defaultBranch,
      summary: outcome.summary,
      tokens: totalAgentTokens(outcome.usage),
      costUsd: outcome.costUsd ?? 0,
      subtasks,
    },
  );
}
