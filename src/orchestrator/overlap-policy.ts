import type { Database } from '../db/database';
import type { TaskRecord } from '../db/repositories/tasks';
import { predictedPaths } from '../util/predicted-paths';

/** A running task whose touched files a READY task names, and one such file. */
export interface OverlapHold {
  taskId: string;
  file: string;
}

type TaskText = Pick<TaskRecord, 'id' | 'projectId' | 'title' | 'description'>;

/**
 * In projects whose overlap_policy is `serialize`: for each of `tasks` that must wait, the live
 * task that already touched a file it names (its title, or its description, which is its plan
 * step for plan subtasks). Such a task waits for it instead of starting a conflicting branch.
 * One read for all of them, whatever their number.
 */
export async function overlapHolds(db: Database, tasks: TaskText[]): Promise<Map<string, OverlapHold>> {
  const named = tasks
    .map((task) => ({ task, paths: new Set(predictedPaths(`${task.title}\n${task.description}`)) }))
    .filter((n) => n.paths.size > 0);
  const holds = new Map<string, OverlapHold>();
  if (named.length === 0) return holds;
  const touching = await db.touchedFiles.touchingAny(
    [...new Set(named.map((n) => n.task.projectId))],
    [...new Set(named.flatMap((n) => [...n.paths]))],
  );
  for (const { task, paths } of named) {
    const hit = touching.find((t) => t.projectId === task.projectId && t.taskId !== task.id && paths.has(t.path));
    if (hit) holds.set(task.id, { taskId: hit.taskId, file: hit.path });
  }
  return holds;
}

/** overlapHolds for one task. */
export async function overlapHold(db: Database, task: TaskText): Promise<OverlapHold | null> {
  return (await overlapHolds(db, [task])).get(task.id) ?? null;
}

/** Takes the READY tasks of `serialize` projects (`serializing`: their ids) that overlap a running task out of this round. */
export async function holdBackOverlapping(
  db: Database,
  readyTasks: Record<string, Array<{ id: string }>>,
  serializing: ReadonlySet<string>,
): Promise<void> {
  const candidates = Object.entries(readyTasks)
    .filter(([projectId]) => serializing.has(projectId))
    .flatMap(([, ready]) => ready.map((row) => row.id));
  if (candidates.length === 0) return;
  const held = await overlapHolds(db, await db.tasks.textsOf(candidates));
  for (const projectId of Object.keys(readyTasks)) {
    if (serializing.has(projectId)) readyTasks[projectId] = readyTasks[projectId].filter((row) => !held.has(row.id));
  }
}

/** The waiting reason's sentence for a held task. */
export function overlapHoldReason(hold: OverlapHold): string {
  return `Its project serializes overlapping work (overlap_policy=serialize): task ${hold.taskId} already touched ${hold.file}, which this task names, and has not landed yet; it starts when that task is done.`;
}
