import { z } from 'zod';
import { defineCommand, type CommandContext } from './catalog';
import { requireTask, taskId } from './task-common';

/** The task whose plan `id` is: the task itself, or, for a step of a plan, the task that made the plan. */
export async function planOwner(ctx: CommandContext, id: string) {
  const task = await requireTask(ctx, id);
  if (task.isPlanSubtask && task.parentTaskId) return (await ctx.db.tasks.get(task.parentTaskId)) ?? task;
  return task;
}

export const getPlan = defineCommand({
  name: 'get_plan',
  group: 'tasks',
  kind: 'read',
  description:
    "The plan a task's agent wrote, as its steps (the child tasks, in order, with their status); given a step, the plan it belongs to. No steps: the task made no plan.",
  input: z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const owner = await planOwner(ctx, task_id);
    const steps = await ctx.db.planChains.steps(owner.id);
    return {
      task_id: owner.id,
      title: owner.title,
      status: owner.status,
      project_id: owner.projectId,
      steps: steps.map((s) => ({ id: s.id, title: s.title, status: s.status, ...(s.skipped && { skipped: true }) })),
    };
  },
});

export const planCommands = [getPlan];
