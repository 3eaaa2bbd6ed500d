import { z } from 'zod';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { promoteWaiting } from '../orchestrator/task-moves';
import { CommandError, defineCommand } from './catalog';
import { requireProject } from './projects';
import { optional, requiredText } from './schema';
import { requireTask, taskId } from './task-common';

const NOT_BLOCKED_MESSAGE = 'Task is not blocked, so it has no stuck downstream chain.';

export const addDependency = defineCommand({
  name: 'add_dependency',
  group: 'tasks',
  description: 'Make a task wait until another task completes. Cycles and self-dependencies are refused.',
  input: z.object({ task_id: taskId, depends_on: requiredText('Task id it must wait for') }),
  async run({ task_id, depends_on }, ctx) {
    if (task_id === depends_on) throw new CommandError('A task cannot depend on itself.');
    const task = await requireTask(ctx, task_id);
    const upstream = await ctx.db.tasks.get(depends_on);
    if (!upstream) throw new CommandError(`Task '${depends_on}' not found.`);
    if (await ctx.db.tasks.hasDependency(task_id, depends_on)) {
      throw new CommandError(`Task '${task_id}' already depends on '${depends_on}'.`);
    }
    if (await ctx.db.tasks.dependsTransitively(depends_on, task_id)) {
      throw new CommandError(`That would create a cycle: '${depends_on}' already waits (directly or not) on '${task_id}'.`);
    }
    await ctx.db.tasks.addDependency(task_id, depends_on);
    let status = task.status;
    if (upstream.status !== 'COMPLETED' && task.status === 'READY') {
      const held = await new TaskStateMachine(ctx.db).fire(task_id, 'DEPS_ADDED', {}, { from: ['READY'], quiet: true });
      if (held.ok) status = 'DEFINED';
    }
    return { task_id, depends_on, status };
  },
});

export const removeDependency = defineCommand({
  name: 'remove_dependency',
  group: 'tasks',
  description: 'Stop a task from waiting on another; it becomes READY when nothing else holds it back.',
  input: z.object({ task_id: taskId, depends_on: requiredText('Task id to stop waiting for') }),
  async run({ task_id, depends_on }, ctx) {
    const task = await requireTask(ctx, task_id);
    if (!(await ctx.db.tasks.removeDependency(task_id, depends_on))) {
      throw new CommandError(`Task '${task_id}' does not depend on '${depends_on}'.`);
    }
    let status = task.status;
    if (status === 'DEFINED') {
      const promoted = await promoteWaiting(ctx.db, new TaskStateMachine(ctx.db), { ids: [task_id] });
      if (promoted.length > 0) status = 'READY';
    }
    return { task_id, removed: depends_on, status };
  },
});

export const getTaskDependencies = defineCommand({
  name: 'get_task_dependencies',
  group: 'tasks',
  description: 'What a task waits on, and what waits on it.',
  input: z.object({ task_id: taskId }),
  readOnly: true,
  async run({ task_id }, ctx) {
    await requireTask(ctx, task_id);
    const [dependsOn, dependents] = await Promise.all([ctx.db.tasks.upstream(task_id), ctx.db.tasks.downstream(task_id)]);
    return { task_id, depends_on: dependsOn, dependents };
  },
});

export const getChainHealth = defineCommand({
  name: 'get_chain_health',
  group: 'tasks',
  description:
    'Find tasks stuck behind BLOCKED tasks (every downstream task not yet COMPLETED), for one task or a whole project (default: the active project); a project lists only BLOCKED tasks that hold something up.',
  input: z.object({
    task_id: optional(requiredText('A task to check')),
    project_id: optional(requiredText('A project to check')),
  }),
  readOnly: true,
  async run({ task_id, project_id }, ctx) {
    if (task_id) {
      const task = await requireTask(ctx, task_id);
      if (task.status !== 'BLOCKED') {
        return { task_id, status: task.status, stuck_downstream: [], message: NOT_BLOCKED_MESSAGE };
      }
      const stuck = await ctx.db.tasks.stuckDownstream(task_id);
      return { task_id, title: task.title, status: task.status, stuck_downstream: stuck, stuck_count: stuck.length };
    }
    const scope = project_id ?? ctx.session.activeProjectId;
    if (scope) await requireProject(ctx, scope);
    const blocked = scope ? await ctx.db.tasks.blockedInProject(scope) : [];
    const downstream = await ctx.db.tasks.stuckDownstreamOf(blocked.map((b) => b.id));
    // A BLOCKED task that nothing waits on holds up no chain, so it is not listed.
    const stuckChains = blocked.flatMap((b) => {
      const stuck = downstream.get(b.id) ?? [];
      if (stuck.length === 0) return [];
      return [{
        blocked_task: { id: b.id, title: b.title },
        stuck_downstream: stuck.map((s) => ({ id: s.id, title: s.title })),
        stuck_count: stuck.length,
      }];
    });
    return { project_id: scope ?? null, stuck_chains: stuckChains, total_stuck_chains: stuckChains.length };
  },
});

export const taskDependencyCommands = [addDependency, removeDependency, getTaskDependencies, getChainHealth];
