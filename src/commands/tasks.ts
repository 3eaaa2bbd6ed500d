import { z } from 'zod';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { promoteWaiting } from '../orchestrator/task-moves';
import type { TaskPlace } from '../db/repositories/tasks';
import { cursorField, decodeCursor, encodeCursor } from './cursor';
import type { TaskRecord } from '../db/repositories/task-record';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { projectIdOrActive, projectNotFound, requireProject } from './projects';
import { boolean, integer, optional, requiredText, stringList } from './schema';
import { requireTask, taskId, taskStatus } from './task-common';
import { taskOperation } from './task-lifecycle';
import { waitingKeys } from './task-waiting';
import { roomKeys } from './task-room-keys';
import { mergeQueueKeys } from './merge-train';
import { prChecksKeys } from './pr-checks';
import { requireSteerTask } from './steer-check';
import { agentBackendKey, backendProblem } from '../agents/backends';
import { settleAll } from '../util/settle-all';

export const LIST_TASKS_LIMIT = 200;

/**
 * Where a task was asked for; a request made in Slack records its thread without being told.
 * Any text is kept (cards show it as a link only when it is one).
 */
const sourceUrl = z
  .string()
  .trim()
  .min(1)
  .max(2000)
  .describe('Link to the Slack thread (or page) the request came from; a request made in Slack records its own thread instead');

const TASK_LIST: ListPaging = { key: 'tasks', defaultLimit: LIST_TASKS_LIMIT, maxLimit: LIST_TASKS_LIMIT };

export const listTasks = defineCommand({
  name: 'list_tasks',
  group: 'tasks',
  kind: 'read',
  description: `List tasks in queue order (priority, then age), at most ${LIST_TASKS_LIMIT}; total counts every match, and next_offset (null at the end) asks for the next slice. For deep pages pass next_cursor back as cursor instead of an offset.`,
  input: () =>
    z.object({
      project_id: optional(requiredText('Only this project')),
      status: optional(taskStatus('Only tasks in this status')),
      ...pageFields(TASK_LIST),
      cursor: cursorField(),
    }),
  list: TASK_LIST,
  async run({ project_id, status, cursor, ...paging }, ctx) {
    if (cursor !== undefined && paging.offset !== undefined) throw new CommandError('Give either offset or cursor, not both.');
    const page = pageOf(paging, LIST_TASKS_LIMIT);
    let after: TaskPlace | undefined;
    try {
      after = cursor === undefined ? undefined : placeOf(decodeCursor(cursor, 3, 'list_tasks'));
    } catch (err) {
      // An unknown project is the first thing to say, as when the project was checked on its own.
      if (project_id) await requireProject(ctx, project_id);
      throw err;
    }
    // The project check comes back with the page and its count: one statement.
    const { tasks, total, more, projectFound } = await ctx.db.tasks.list({ projectId: project_id, status }, page.limit, {
      offset: page.offset,
      after,
      checkProject: true,
    });
    if (project_id && !projectFound) throw new CommandError(projectNotFound(project_id));
    const last = tasks.at(-1);
    return {
      tasks: tasks.map((t) => ({
        id: t.id,
        project_id: t.projectId,
        title: t.title,
        status: t.status,
        priority: t.priority,
        assigned_agent: t.assignedAgent,
      })),
      total,
      // A page reached by cursor has no known offset: follow next_cursor from there.
      next_offset: after ? null : nextOffset(page, tasks.length, total),
      next_cursor: more && last ? encodeCursor([last.place.priority, last.place.createdAt, last.place.seq]) : null,
    };
  },
});

const placeOf = ([priority, createdAt, seq]: number[]): TaskPlace => ({ priority, createdAt, seq });

export const createTask = defineCommand({
  name: 'create_task',
  group: 'tasks',
  kind: 'change',
  description:
    'Queue a task for an agent. Lower priority numbers run first. With depends_on, the task waits (DEFINED) until those tasks complete.',
  input: () =>
    z.object({
      title: requiredText('Short title'),
      description: requiredText('Self-contained description of the work'),
      project_id: optional(requiredText('Project id (defaults to the active project)')),
      priority: optional(integer('Lower runs first; default 100')),
      repo_id: optional(requiredText('Repo to work in')),
      requires_approval: optional(boolean('Open a pull request and wait for approval instead of merging')),
      depends_on: optional(stringList('Task ids that must complete first')),
      source_url: optional(sourceUrl),
      backend: optional(requiredText('Agent backend to run on: claude-code, acp (any ACP profile) or acp:<profile>')),
    }),
  async run(args, ctx) {
    const projectId = projectIdOrActive(ctx, args.project_id);
    const project = await requireProject(ctx, projectId);
    if (args.backend) {
      const problem = backendProblem(args.backend, ctx.config.agents.profiles);
      if (problem) throw new CommandError(problem);
      if (project.backends && !project.backends.some((b) => b === args.backend || (b === 'acp' && args.backend?.startsWith('acp:')))) {
        throw new CommandError(
          `Project '${projectId}' runs its tasks on ${project.backends.join(', ')}: pick one of those, or change the project's backends with edit_project.`,
        );
      }
    }
    if (args.repo_id) {
      const repo = await ctx.db.repos.get(args.repo_id);
      if (!repo) throw new CommandError(`Repo '${args.repo_id}' not found.`);
      if (repo.projectId !== projectId) {
        throw new CommandError(`Repo '${args.repo_id}' belongs to project '${repo.projectId}', not '${projectId}'.`);
      }
    }
    const upstream = [...new Set(args.depends_on ?? [])];
    const upstreamStatus = await ctx.db.tasks.statusesOf(upstream);
    const missing = upstream.find((id) => !upstreamStatus.has(id));
    if (missing) throw new CommandError(`Cannot depend on task '${missing}': it does not exist.`);
    // Waits (DEFINED) while any upstream task is unfinished; the orchestrator promotes it to READY.
    const waiting = upstream.some((id) => upstreamStatus.get(id) !== 'COMPLETED');
    const { task, event } = await ctx.db.tasks.createReported(
      {
        projectId,
        title: args.title,
        description: args.description,
        priority: args.priority ?? 100,
        repoId: args.repo_id ?? null,
        requiresApproval: args.requires_approval ?? false,
        status: waiting ? 'DEFINED' : 'READY',
        // A request made in Slack records its own thread, whatever link the model put here.
        sourceUrl: ctx.actor.sourceUrl ?? args.source_url ?? null,
        // Who may approve it when the project leaves approvals to requesters.
        requestedBy: ctx.actor.source === 'slack' || ctx.actor.source === 'chat' ? (ctx.actor.userId ?? null) : null,
        backend: args.backend ?? null,
      },
      upstream,
      (t) => ctx.events.event('task_created', { projectId, taskId: t.id, payload: { title: t.title, status: t.status } }),
    );
    await ctx.events.dispatch(event);
    return {
      created: task.id,
      title: task.title,
      project_id: projectId,
      ...(args.repo_id && { repo_id: args.repo_id }),
      ...(args.requires_approval && { requires_approval: true }),
      ...(upstream.length > 0 && { depends_on: upstream, status: task.status }),
      ...(args.backend && { backend: args.backend }),
    };
  },
});

/** The backend the task asked for or was fixed to by its first run, and its agent's. */
async function backendKeys(ctx: CommandContext, t: TaskRecord): Promise<Record<string, string>> {
  const agent = t.assignedAgent ? await ctx.db.agents.get(t.assignedAgent) : null;
  return {
    ...(t.backend && { backend: t.backend }),
    ...(agent && { agent_backend: agentBackendKey(agent) }),
  };
}

export const getTask = defineCommand({
  name: 'get_task',
  group: 'tasks',
  kind: 'read',
  description: 'Show one task in full.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    // What the id alone finds is read beside the task, and what the task leads to after it: two waits, not six.
    const [t, usage, room, mergeQueue] = await settleAll([
      requireTask(ctx, task_id),
      ctx.db.tokenUsage.forTask(task_id),
      roomKeys(ctx, task_id),
      mergeQueueKeys(ctx, task_id),
    ]);
    const [waiting, backend, checks] = await settleAll([
      waitingKeys(ctx, t),
      backendKeys(ctx, t),
      t.prUrl && t.status === 'AWAITING_APPROVAL' ? prChecksKeys(ctx, [t.id]).then((byTask) => byTask.get(t.id)) : undefined,
    ]);
    return {
      id: t.id,
      project_id: t.projectId,
      title: t.title,
      description: t.description,
      status: t.status,
      priority: t.priority,
      assigned_agent: t.assignedAgent,
      retry_count: t.retryCount,
      max_retries: t.maxRetries,
      requires_approval: t.requiresApproval,
      tokens: usage.tokens,
      cost_usd: usage.costUsd,
      ...(t.prUrl && { pr_url: t.prUrl }),
      ...(t.branchName && { branch: t.branchName }),
      ...(t.repoId && { repo_id: t.repoId }),
      ...(t.sourceUrl && { source_url: t.sourceUrl }),
      ...(t.requestedBy && { requested_by: t.requestedBy }),
      ...(t.startedAt && { started_at: t.startedAt.toISOString() }),
      ...waiting,
      ...room,
      ...backend,
      ...mergeQueue,
      ...checks,
    };
  },
});

export const editTask = defineCommand({
  name: 'edit_task',
  group: 'tasks',
  kind: 'change',
  description: "Change a task's title, description or priority.",
  input: () =>
    z.object({
      task_id: taskId,
      title: optional(requiredText('New title')),
      description: optional(requiredText('New description')),
      priority: optional(integer('New priority (lower runs first)')),
    }),
  async run({ task_id, title, description, priority }, ctx) {
    const changes: Record<string, unknown> = {};
    if (title !== undefined) changes.title = title;
    if (description !== undefined) changes.description = description;
    if (priority !== undefined) changes.priority = priority;
    const fields = Object.keys(changes);
    if (fields.length === 0) throw new CommandError('Nothing to update: give at least one of title, description, priority.');
    await requireSteerTask(ctx, task_id, 'edit');
    const updated = await ctx.db.tasks.update(task_id, changes);
    if (!updated) throw new CommandError(`Task '${task_id}' not found.`);
    await ctx.events.emit('task_updated', { projectId: updated.after.projectId, taskId: task_id, payload: { fields } });
    return { updated: task_id, fields };
  },
});

export const deleteTask = defineCommand({
  name: 'delete_task',
  group: 'tasks',
  kind: 'destructive',
  description: 'Delete a task (a running one is stopped first). Tasks that waited only on it become READY.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const task = await requireTask(ctx, task_id);
    await requireSteerTask(ctx, task_id, 'delete');
    if (task.status === 'IN_PROGRESS') {
      await taskOperation(ctx.orchestrator.stopTask(task_id), (error) => `Could not stop task '${task_id}' before deleting it: ${error}`);
    }
    const dependents = await ctx.db.tasks.downstream(task_id);
    await ctx.db.tasks.delete(task_id);
    await ctx.events.emit('task_deleted', { projectId: task.projectId, taskId: task_id, payload: { title: task.title } });
    // Its edges went with it, so tasks that waited only on it can run now.
    const promoted = await promoteWaiting(ctx.db, new TaskStateMachine(ctx.db), { ids: dependents.map((d) => d.id) });
    for (const p of promoted) {
      await ctx.events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title, by: task_id } });
    }
    return { deleted: task_id, title: task.title };
  },
});

export const setTaskStatus = defineCommand({
  name: 'set_task_status',
  group: 'tasks',
  kind: 'destructive',
  description: 'Force a task into any status, bypassing the usual rules (for repairs).',
  input: () => z.object({ task_id: taskId, status: taskStatus('The new status') }),
  async run({ task_id, status }, ctx) {
    await requireSteerTask(ctx, task_id, 'set the status of');
    const forced = await taskOperation(ctx.orchestrator.setTaskStatus(task_id, status));
    return { task_id, old_status: forced.oldStatus, new_status: forced.newStatus, title: forced.title };
  },
});

export const taskCommands = [listTasks, createTask, getTask, editTask, deleteTask, setTaskStatus];
