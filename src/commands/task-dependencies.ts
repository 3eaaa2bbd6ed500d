import { z } from 'zod';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { promoteWaiting } from '../orchestrator/task-moves';
import { CommandError, defineCommand } from './catalog';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { projectNotFound } from './projects';
import { optional, requiredText } from './schema';
import { requireTask, taskId } from './task-common';
import { settleAll } from '../util/settle-all';

const NOT_BLOCKED_MESSAGE = 'Task is not blocked, so it has no stuck downstream chain.';
/** One limit pages both lists of get_task_dependencies; `dependents` is the one that grows most. */
const DEPENDENCY_LIST: ListPaging = { key: 'dependents', totalKey: 'dependents_total', defaultLimit: 100, maxLimit: 500 };
/** Chains of a project a page; with task_id, the page is of that task's stuck downstream. */
const CHAIN_LIST: ListPaging = { key: 'stuck_chains', totalKey: 'total_stuck_chains', defaultLimit: 50, maxLimit: 200 };
/** Each chain of a project shows this many of its stuck tasks; stuck_count counts them all. */
export const CHAIN_DOWNSTREAM_SHOWN = 20;

export const addDependency = defineCommand({
  name: 'add_dependency',
  group: 'tasks',
  kind: 'change',
  description: 'Make a task wait until another task completes. Cycles and self-dependencies are refused.',
  input: () => z.object({ task_id: taskId, depends_on: requiredText('Task id it must wait for') }),
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
  kind: 'change',
  description: 'Stop a task from waiting on another; it becomes READY when nothing else holds it back.',
  input: () => z.object({ task_id: taskId, depends_on: requiredText('Task id to stop waiting for') }),
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
  kind: 'read',
  description: `What a task waits on, and what waits on it, ${DEPENDENCY_LIST.defaultLimit} of each a page; depends_on_total and dependents_total count them all, next_offset asks for the next page.`,
  input: () => z.object({ task_id: taskId, ...pageFields(DEPENDENCY_LIST) }),
  list: DEPENDENCY_LIST,
  async run({ task_id, ...paging }, ctx) {
    await requireTask(ctx, task_id);
    const page = pageOf(paging, DEPENDENCY_LIST.defaultLimit);
    const [dependsOn, dependents, counts] = await settleAll([
      ctx.db.tasks.upstream(task_id, page),
      ctx.db.tasks.downstream(task_id, page),
      ctx.db.tasks.dependencyCounts(task_id),
    ]);
    return {
      task_id,
      depends_on: dependsOn,
      dependents,
      depends_on_total: counts.upstream,
      dependents_total: counts.downstream,
      next_offset: nextOffset(page, Math.max(dependsOn.length, dependents.length), Math.max(counts.upstream, counts.downstream)),
    };
  },
});

export const getChainHealth = defineCommand({
  name: 'get_chain_health',
  group: 'tasks',
  kind: 'read',
  description: `Find tasks stuck behind BLOCKED tasks (every downstream task not yet COMPLETED), for one task or a whole project (default: the active project). A project lists the BLOCKED tasks that hold something up, ${CHAIN_LIST.defaultLimit} a page (total_stuck_chains counts them all, next_offset asks for the next page), each with its ${CHAIN_DOWNSTREAM_SHOWN} nearest stuck tasks and stuck_count; with task_id, limit and offset page its stuck_downstream.`,
  input: () =>
    z.object({
      task_id: optional(requiredText('A task to check')),
      project_id: optional(requiredText('A project to check')),
      ...pageFields(CHAIN_LIST),
    }),
  list: CHAIN_LIST,
  async run({ task_id, project_id, ...paging }, ctx) {
    const page = pageOf(paging, CHAIN_LIST.defaultLimit);
    if (task_id) {
      const task = await requireTask(ctx, task_id);
      if (task.status !== 'BLOCKED') {
        return { task_id, status: task.status, stuck_downstream: [], message: NOT_BLOCKED_MESSAGE };
      }
      const stuck = (await ctx.db.tasks.stuckDownstreamPages([task_id], page)).get(task_id) ?? { tasks: [], count: 0 };
      return {
        task_id,
        title: task.title,
        status: task.status,
        stuck_downstream: stuck.tasks,
        stuck_count: stuck.count,
        next_offset: nextOffset(page, stuck.tasks.length, stuck.count),
      };
    }
    const scope = project_id ?? ctx.session.activeProjectId;
    // A BLOCKED task that nothing unfinished waits on holds up no chain, so it is not listed.
    const found = scope ? await ctx.db.tasks.projectStuckChains(scope, page, CHAIN_DOWNSTREAM_SHOWN) : null;
    if (scope && !found?.projectFound) throw new CommandError(projectNotFound(scope));
    const stuckChains = (found?.chains ?? []).map((b) => ({
      blocked_task: { id: b.id, title: b.title },
      stuck_downstream: b.stuck.tasks.map((s) => ({ id: s.id, title: s.title })),
      stuck_count: b.stuck.count,
    }));
    const total = found?.total ?? 0;
    return {
      project_id: scope ?? null,
      stuck_chains: stuckChains,
      total_stuck_chains: total,
      next_offset: nextOffset(page, stuckChains.length, total),
    };
  },
});

export const taskDependencyCommands = [addDependency, removeDependency, getTaskDependencies, getChainHealth];
