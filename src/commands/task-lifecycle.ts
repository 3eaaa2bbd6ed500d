import { z } from 'zod';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { promoteWaiting } from '../orchestrator/task-moves';
import { CommandError, defineCommand } from './catalog';
import { requireTask, taskId } from './task-common';

export const stopTask = defineCommand({
  name: 'stop_task',
  group: 'tasks',
  description: 'Stop a running task; it becomes BLOCKED until restarted or skipped.',
  input: z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const error = await ctx.orchestrator.stopTask(task_id);
    if (error) throw new CommandError(error);
    return { stopped: task_id };
  },
});

export const restartTask = defineCommand({
  name: 'restart_task',
  group: 'tasks',
  description: 'Put a task back in the queue (READY) with its retry count reset. Not for running tasks.',
  input: z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const task = await requireTask(ctx, task_id);
    if (task.status === 'IN_PROGRESS') {
      throw new CommandError(`Task '${task_id}' is IN_PROGRESS. Stop it first (stop_task), then restart it.`);
    }
    const moved = await new TaskStateMachine(ctx.db).fire(
      task_id,
      'ADMIN_RESTART',
      { retryCount: 0, assignedAgent: null, resumeAfter: null, pauseReason: null },
      { from: [task.status], quiet: true },
    );
    if (!moved.ok) throw new CommandError(`Task '${task_id}' changed while restarting; try again.`);
    await ctx.events.emit('task_restarted', {
      projectId: task.projectId,
      taskId: task_id,
      payload: { title: task.title, previous_status: task.status },
    });
    return { restarted: task_id, title: task.title, previous_status: task.status };
  },
});

export const approveTask = defineCommand({
  name: 'approve_task',
  group: 'tasks',
  description: 'Approve a task that is AWAITING_APPROVAL; it becomes COMPLETED.',
  input: z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const task = await requireTask(ctx, task_id);
    if (task.status !== 'AWAITING_APPROVAL') {
      throw new CommandError(`Task '${task_id}' is ${task.status}, not AWAITING_APPROVAL, so there is nothing to approve.`);
    }
    const machine = new TaskStateMachine(ctx.db);
    const moved = await machine.fire(task_id, 'ADMIN_APPROVE', { completedAt: new Date() }, { from: ['AWAITING_APPROVAL'], quiet: true });
    if (!moved.ok) throw new CommandError(`Task '${task_id}' was already handled by someone else.`);
    await ctx.events.emit('task_completed', {
      projectId: task.projectId,
      taskId: task_id,
      payload: { title: task.title, approved: true, ...(ctx.actor.userId && { approved_by: ctx.actor.userId }) },
    });
    const promoted = await promoteWaiting(ctx.db, machine, task_id);
    for (const p of promoted) {
      await ctx.events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title } });
    }
    return { approved: task_id, title: task.title };
  },
});

export const skipTask = defineCommand({
  name: 'skip_task',
  group: 'tasks',
  description: 'Skip a BLOCKED or FAILED task (it counts as done) so tasks waiting only on it can run.',
  input: z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const outcome = await ctx.orchestrator.skipTask(task_id);
    if ('error' in outcome) throw new CommandError(outcome.error);
    return { skipped: outcome.skipped, unblocked_count: outcome.unblocked.length, unblocked: outcome.unblocked };
  },
});

export const taskLifecycleCommands = [stopTask, restartTask, approveTask, skipTask];
