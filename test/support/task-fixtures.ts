import type { Database } from '../../src/db/database';
import { TASK_STATUSES, type TaskStatus } from '../../src/db/value-sets';
import type { TaskUpdate } from '../../src/db/repositories/tasks';

/**
 * Puts a task in `status` from wherever it is, as a test's starting point (what a run or a
 * person would have left). The app itself moves tasks only through the state machine.
 */
export async function putTask(db: Database, taskId: string, status: TaskStatus, changes: TaskUpdate = {}): Promise<void> {
  if (!(await db.tasks.transition(taskId, [...TASK_STATUSES], status, changes))) throw new Error(`No task ${taskId} to put in ${status}`);
}
