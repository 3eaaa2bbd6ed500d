import type { Database } from '../db/database';
import type { TaskRecord } from '../db/repositories/tasks';
import { predictedPaths } from '../util/predicted-paths';

/** A running task whose touched files a READY task names, and one such file. */
export interface OverlapHold {
  taskId: string;
  file: string;
}

/**
 * In a project whose overlap_policy is `serialize`: the live task that already touched a file
 * this READY task names (its title, or its description, which is its plan step for plan
 * subtasks), if any. The task waits for it instead of starting a conflicting branch.
 */
export async function overlapHold(
  db: Database,
  task: Pick<TaskRecord, 'id' | 'projectId' | 'title' | 'description'>,
): Promise<OverlapHold | null> {
  const paths = predictedPaths(`${task.title}\n${task.description}`);
  if (paths.length === 0) return null;
  const touching = (await db.touchedFiles.touchingAny(task.projectId, paths)).filter((t) => t.taskId !== task.id);
  return touching.length > 0 ? { taskId: touching[0].taskId, file: touching[0].files[0] } : null;
}

/** Takes the READY tasks of `serialize` projects that overlap a running task out of this round. */
export async function holdBackOverlapping(db: Database, readyTasks: Record<string, Array<{ id: string }>>): Promise<void> {
  for (const [projectId, ready] of Object.entries(readyTasks)) {
    if (ready.length === 0 || (await db.projects.get(projectId))?.overlapPolicy !== 'serialize') continue;
    const kept: Array<{ id: string }> = [];
    for (const row of ready) {
      const task = await db.tasks.get(row.id);
      if (!task || !(await overlapHold(db, task))) kept.push(row);
    }
    readyTasks[projectId] = kept as typeof ready;
  }
}

/** The waiting reason's sentence for a held task. */
export function overlapHoldReason(hold: OverlapHold): string {
  return `Its project serializes overlapping work (overlap_policy=serialize): task ${hold.taskId} already touched ${hold.file}, which this task names, and has not landed yet; it starts when that task is done.`;
}
