import { z } from 'zod';
import { TaskOperationError } from '../orchestrator/task-errors';
import { CommandError, defineCommand } from './catalog';
import { taskId } from './task-common';
import { landApprovedTask, queueApprovedTask } from './task-approval';
import { requireMayApprove, requireSteerTask } from './steer-check';

/** Runs a task operation; its refusal (TaskOperationError) becomes the command's error sentence. */
export async function taskOperation<T>(operation: Promise<T>, wording: (message: string) => string = (m) => m): Promise<T> {
  try {
    return await operation;
  } catch (err) {
    if (err instanceof TaskOperationError) throw new CommandError(wording(err.message));
    throw err;
  }
}

export const stopTask = defineCommand({
  name: 'stop_task',
  group: 'tasks',
  kind: 'change',
  description: 'Stop a running task; it becomes BLOCKED until restarted or skipped.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    await requireSteerTask(ctx, task_id, 'stop');
    await taskOperation(ctx.orchestrator.stopTask(task_id));
    return { stopped: task_id };
  },
});

export const restartTask = defineCommand({
  name: 'restart_task',
  group: 'tasks',
  kind: 'change',
  description: 'Put a task back in the queue (READY) with its retry count reset. Not for running tasks.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    await requireSteerTask(ctx, task_id, 'restart');
    const { title, previousStatus } = await taskOperation(ctx.orchestrator.restartTask(task_id));
    return { restarted: task_id, title, previous_status: previousStatus };
  },
});

export const approveTask = defineCommand({
  name: 'approve_task',
  group: 'tasks',
  kind: 'change',
  description:
    "Approve a task that is AWAITING_APPROVAL: its work is queued for landing in its repository's merge train (checked, then merged; it becomes COMPLETED when it lands). A task with nothing to land becomes COMPLETED at once.",
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    await requireMayApprove(ctx, task_id);
    const queued = await queueApprovedTask(ctx, task_id);
    if (queued) return { approved: task_id, ...queued };
    const landed = await landApprovedTask(ctx, task_id);
    const { title } = await taskOperation(ctx.orchestrator.approveTask(task_id, ctx.actor.userId));
    return { approved: task_id, title, ...landed };
  },
});

export const skipTask = defineCommand({
  name: 'skip_task',
  group: 'tasks',
  kind: 'change',
  description: 'Skip a BLOCKED or FAILED task (it counts as done) so tasks waiting only on it can run.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    await requireSteerTask(ctx, task_id, 'skip');
    const outcome = await taskOperation(ctx.orchestrator.skipTask(task_id));
    return { skipped: outcome.skipped, unblocked_count: outcome.unblocked.length, unblocked: outcome.unblocked };
  },
});

export const taskLifecycleCommands = [stopTask, restartTask, approveTask, skipTask];
