import { z } from 'zod';
import type { TrainEntry } from '../db/repositories/merge-train';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { prChecksKeys } from './pr-checks';
import { integer, optional, optionalText, requiredText } from './schema';
import { settleAll } from '../util/settle-all';

const MERGE_QUEUE: ListPaging = { key: 'entries', defaultLimit: 50, maxLimit: 500 };

/** Where a queued task stands in its train. */
function placeView(e: TrainEntry) {
  return {
    train: e.train,
    place: e.place,
    state: e.state,
    since: new Date(e.since).toISOString(),
    tries: e.tries,
    last_outcome: e.lastOutcome,
  };
}

export type MergeQueuePlace = ReturnType<typeof placeView>;

function entryView(e: TrainEntry, titles: Map<string, string>) {
  return { task_id: e.taskId, title: titles.get(e.taskId) ?? null, ...placeView(e) };
}

/**
 * get_task's merge_queue key while the task waits in a merge train: its train, place, state
 * (waiting, updating, checking, merging, sent_back), since when, tries and last outcome.
 */
export async function mergeQueueKeys(ctx: CommandContext, taskId: string): Promise<{ merge_queue?: MergeQueuePlace }> {
  const entry = await ctx.db.mergeTrain.get(taskId);
  return entry ? { merge_queue: placeView(entry) } : {};
}

async function titlesOf(ctx: CommandContext, entries: TrainEntry[]): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const e of entries) {
    const task = await ctx.db.tasks.get(e.taskId);
    if (task) titles.set(e.taskId, task.title);
  }
  return titles;
}

async function requireEntry(ctx: CommandContext, taskId: string): Promise<TrainEntry> {
  const entry = await ctx.db.mergeTrain.get(taskId);
  if (entry) return entry;
  if (!(await ctx.db.tasks.get(taskId))) throw new CommandError(`Task '${taskId}' not found.`);
  throw new CommandError(`Task '${taskId}' is not in a merge train; see get_merge_queue for the tasks waiting to land.`);
}

export const getMergeQueue = defineCommand({
  name: 'get_merge_queue',
  group: 'tasks',
  kind: 'read',
  description: `List a project's (or one repository's) merge train: each queued task's place, state (waiting, updating, checking, merging, sent_back), since when, tries and last outcome, in landing order, ${MERGE_QUEUE.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () =>
    z.object({
      project_id: optionalText('Project id (its trains, one per repository)'),
      repo_id: optionalText("Repository id (only that repository's train)"),
      ...pageFields(MERGE_QUEUE),
    }),
  list: MERGE_QUEUE,
  async run({ project_id, repo_id, ...paging }, ctx) {
    if (!project_id && !repo_id) throw new CommandError('Give project_id or repo_id to say which merge train to show.');
    const repo = repo_id ? await ctx.db.repos.get(repo_id) : null;
    if (repo_id && !repo) throw new CommandError(`Repository '${repo_id}' not found.`);
    if (repo && project_id && repo.projectId !== project_id)
      throw new CommandError(
        `Repo '${repo.id}' belongs to project '${repo.projectId}', not '${project_id}'. Pick one of its repos (/aq list_repos project_id=${project_id}).`,
      );
    if (project_id && !repo_id && !(await ctx.db.projects.get(project_id))) throw new CommandError(`Project '${project_id}' not found.`);
    const filter = repo_id ? { train: repo_id } : { projectId: project_id as string };
    const page = pageOf(paging, MERGE_QUEUE.defaultLimit);
    const [entries, total] = await settleAll([ctx.db.mergeTrain.list(filter, page), ctx.db.mergeTrain.count(filter)]);
    const titles = await titlesOf(ctx, entries);
    const checks = await prChecksKeys(
      ctx,
      entries.map((e) => e.taskId),
    );
    return {
      entries: entries.map((e) => ({ ...entryView(e, titles), ...checks.get(e.taskId) })),
      total,
      next_offset: nextOffset(page, entries.length, total),
    };
  },
});

export const moveInMergeQueue = defineCommand({
  name: 'move_in_merge_queue',
  group: 'tasks',
  kind: 'admin',
  description: 'Move a task to another place in its merge train (1 or no place: the front); the others keep their order.',
  input: () =>
    z.object({
      task_id: requiredText('Task id'),
      place: optional(integer('Its new place, 1 being next to land (default 1)', { min: 1, max: 100_000 })),
    }),
  async run({ task_id, place }, ctx) {
    await requireEntry(ctx, task_id);
    const moved = await ctx.db.mergeTrain.moveTo(task_id, place ?? 1);
    if (!moved) throw new CommandError(`Task '${task_id}' left the merge train meanwhile; look at get_merge_queue again.`);
    return { moved: task_id, place: moved.place, state: moved.state };
  },
});

export const removeFromMergeQueue = defineCommand({
  name: 'remove_from_merge_queue',
  group: 'tasks',
  kind: 'admin',
  description:
    'Take a task out of its merge train: it stays AWAITING_APPROVAL, unmerged, until someone approves, restarts or skips it. A landing under way is not interrupted.',
  input: () => z.object({ task_id: requiredText('Task id') }),
  async run({ task_id }, ctx) {
    const entry = await requireEntry(ctx, task_id);
    if (entry.state !== 'waiting' && entry.state !== 'sent_back')
      throw new CommandError(`Task '${task_id}' is landing right now (${entry.state}); try again when the landing is over.`);
    if (!(await ctx.db.mergeTrain.remove(task_id))) throw new CommandError(`Task '${task_id}' left the merge train meanwhile.`);
    // The workspace it kept for landing is free again (approving it takes it back).
    const task = await ctx.db.tasks.get(task_id);
    if (task?.workspaceId && task.status === 'AWAITING_APPROVAL') await ctx.db.workspaces.release(task.workspaceId, task_id);
    return { removed: task_id };
  },
});

export const mergeTrainCommands = [getMergeQueue, moveInMergeQueue, removeFromMergeQueue];
