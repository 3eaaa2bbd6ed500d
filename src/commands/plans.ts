import { z } from 'zod';
import { isSingleStepFallback } from '../orchestrator/auto-task';
import { buildTaskDescription, extractPlanContext, parsePlan } from '../plan/parser';
import { diffSteps, noChanges } from '../plan/plan-diff';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { boolean, optional, requiredText } from './schema';
import { requireSteerTask } from './steer-check';
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
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const owner = await planOwner(ctx, task_id);
    const steps = await ctx.db.planChains.steps(owner.id);
    return {
      task_id: owner.id,
      title: owner.title,
      status: owner.status,
      project_id: owner.projectId,
      steps: steps.map((s) => ({
        id: s.id,
        title: s.title,
        status: s.status,
        description: s.description,
        ...(s.skipped && { skipped: true }),
      })),
    };
  },
});

/** Step titles are cut as plans cut them when they become tasks. */
const stepTitle = (title: string) => (title.length > 200 ? `${title.slice(0, 197)}...` : title);

export const revisePlan = defineCommand({
  name: 'revise_plan',
  group: 'tasks',
  kind: 'change',
  description:
    "Revise a plan before its steps run: the plan's new text (Markdown, read like an agent's plan file) is matched to the standing steps, and the changes (steps added, removed, renamed) are returned. Nothing changes unless confirm is true, and only while every step still waits.",
  input: () =>
    z.object({
      task_id: taskId,
      plan: requiredText('The revised plan as Markdown: a "## " heading (or a numbered item) per step, with its details under it'),
      confirm: optional(boolean('Apply the changes (default false: only show them)')),
    }),
  async run({ task_id, plan, confirm }, ctx) {
    const owner = await planOwner(ctx, task_id);
    const standing = await ctx.db.planChains.steps(owner.id);
    if (standing.length === 0) throw new CommandError(`Task '${owner.id}' made no plan to revise.`);
    const parsed = parsePlan(plan, { maxSteps: ctx.config.autoTask.maxStepsPerPlan });
    if (parsed.steps.length === 0)
      throw new CommandError(
        'The revised plan has no steps I can read: give each step a "## " heading with a line or more of details under it, or number the steps (1., 2., …). Nothing was changed.',
      );
    if (isSingleStepFallback(plan, parsed))
      throw new CommandError(
        'The revised plan reads as one document rather than separate steps: give each step a "## " heading with its details under it. Nothing was changed.',
      );
    const steps = parsed.steps.map((s) => ({ ...s, title: stepTitle(s.title) }));
    const { changes, order } = diffSteps(standing, steps);
    const summary = { task_id: owner.id, title: owner.title, added: changes.added, removed: changes.removed, changed: changes.changed };
    if (!confirm || noChanges(changes)) return { ...summary, applied: false };
    await requireSteerTask(ctx, owner.id, 'revise the plans of');
    const context = extractPlanContext(plan);
    const renamed = new Set(changes.changed.map((c) => c.id));
    const byId = new Map(standing.map((s) => [s.id, s]));
    const outcome = await ctx.db.planChains.revise({
      parentId: owner.id,
      steps: order.map(({ id, step }) => ({
        id,
        title: step.title,
        // A kept step keeps its task's description unless it was renamed, when it is rebuilt from its new text.
        description: id && !renamed.has(id) ? (byId.get(id)?.description ?? '') : buildTaskDescription(step, owner, context),
      })),
    });
    if (!outcome.ok) {
      throw new CommandError(
        outcome.started
          ? `Step '${outcome.started.id}' of this plan is already ${outcome.started.status.toLowerCase().replace(/_/g, ' ')}: a plan can be revised only before its steps run. Change single steps with edit_task or delete_task instead.`
          : 'The plan changed while this revision was being made: read it again with get_plan and revise that.',
      );
    }
    const event = { projectId: owner.projectId };
    for (const id of outcome.added) {
      const step = order[outcome.ids.indexOf(id)].step;
      await ctx.events.emit('task_created', {
        ...event,
        taskId: id,
        payload: { title: step.title, status: 'DEFINED', parent_task_id: owner.id },
      });
    }
    for (const r of changes.removed) await ctx.events.emit('task_deleted', { ...event, taskId: r.id, payload: { title: r.title } });
    for (const c of changes.changed)
      await ctx.events.emit('task_updated', { ...event, taskId: c.id, payload: { fields: ['title', 'description'] } });
    await ctx.events.emit('task_updated', { ...event, taskId: owner.id, payload: { fields: ['plan'] } });
    return { ...summary, applied: true, steps: outcome.ids.map((id, i) => ({ id, title: order[i].step.title })) };
  },
});

export const planCommands = [getPlan, revisePlan];
