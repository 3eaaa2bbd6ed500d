import type { Database } from '../db/database';
import type { TaskRecord } from '../db/repositories/tasks';
import type { EventLog } from './events';
import { settleAll } from '../util/settle-all';

/**
 * How long a follow-up waits for the workspace its agent session worked in, while another task
 * holds it, before it moves to another one (its resumed conversation names the old paths, so
 * staying is worth a wait).
 */
export const FOLLOW_UP_WORKSPACE_WAIT_MS = 10 * 60_000;

const waitText = `${FOLLOW_UP_WORKSPACE_WAIT_MS / 60_000} minutes`;

interface Deps {
  db: Database;
  events: EventLog;
}

/** The task's own workspace for a follow-up: the one its last run (and its session) used. */
export function followUpWorkspace(task: TaskRecord): string | null {
  return task.workspaceId ?? task.preferredWorkspaceId ?? null;
}

/** Says in the task's thread that its follow-up waits for its own workspace, when another task holds it. */
export async function announceFollowUpWait(deps: Deps, task: TaskRecord): Promise<void> {
  const id = followUpWorkspace(task);
  const workspace = id ? await deps.db.workspaces.get(id) : null;
  if (!workspace?.lockedByTaskId || workspace.lockedByTaskId === task.id) return;
  await deps.events.emit('task_waiting_workspace', {
    projectId: task.projectId,
    taskId: task.id,
    payload: {
      title: task.title,
      reason: `The follow-up waits for workspace '${workspace.id}', where its agent worked, which task ${workspace.lockedByTaskId} is using; after ${waitText} it moves to another workspace.`,
    },
  });
}

/**
 * Follow-ups that waited longer than the limit for their workspace let go of it: the scheduler
 * then gives them any free one, and the run's first message tells the agent it moved.
 */
export async function releaseStaleFollowUpPins(deps: Deps & { now: () => Date }): Promise<string[]> {
  const stale = await deps.db.taskMessages.followUpsPinnedSince(new Date(deps.now().getTime() - FOLLOW_UP_WORKSPACE_WAIT_MS));
  const released: string[] = [];
  for (const pin of stale) {
    const changed = await deps.db.tasks.update(pin.taskId, { preferredWorkspaceId: null });
    if (!changed || changed.before.preferredWorkspaceId !== pin.workspaceId) continue;
    released.push(pin.taskId);
    await deps.events.emit('task_waiting_workspace', {
      projectId: pin.projectId,
      taskId: pin.taskId,
      payload: {
        title: changed.after.title,
        reason: `Workspace '${pin.workspaceId}' stayed busy for ${waitText}: the follow-up moves to another workspace, and its agent is told so.`,
      },
    });
  }
  return released;
}

/**
 * The first lines of a follow-up that resumes its session in another workspace: the resumed
 * conversation is full of the old absolute paths, so the move must be impossible to miss.
 */
export async function workspaceMoveNotice(db: Database, task: TaskRecord): Promise<string | null> {
  if (!task.workspaceId) return null;
  const runs = await db.runRecords.forTask(task.id);
  const previous = [...runs].reverse().find((r) => r.id !== task.currentRunId);
  if (!previous || previous.workspaceId === task.workspaceId) return null;
  const [before, now] = await settleAll([db.workspaces.get(previous.workspaceId), db.workspaces.get(task.workspaceId)]);
  if (!before || !now || before.path === now.path) return null;
  return [
    '⚠️ YOUR WORKSPACE HAS MOVED. Read this before anything else.',
    `Earlier in this conversation you worked in ${before.path}. That folder now belongs to another task: you cannot read or write it, and any attempt is refused.`,
    `Your workspace is now ${now.path}, another checkout of the same repository on the same branch. Wherever you used a path under ${before.path}, use the same path under ${now.path}.`,
  ].join('\n');
}
