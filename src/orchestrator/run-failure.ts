import type { TaskRecord } from '../db/repositories/tasks';
import { classifyError } from '../agents/errors';
import { reportBlocked } from './completion';
import type { RunnerDeps } from './runner-deps';
import { cutWhole } from '../util/whole-characters';

/** A failed run: retried while retries remain, then BLOCKED with the stranded chain reported. */
export async function failRun(deps: Pick<RunnerDeps, 'db' | 'events' | 'machine'>, task: TaskRecord, error: string): Promise<void> {
  const { machine, events } = deps;
  const retryCount = task.retryCount + 1;
  const failed = await machine.fire(task.id, 'AGENT_FAILED', { retryCount }, { from: ['IN_PROGRESS'] });
  if (!failed.ok) return;
  const { errorType, suggestedFix } = classifyError(error);
  const willRetry = retryCount < task.maxRetries;
  await events.emit('task_failed', {
    projectId: task.projectId,
    taskId: task.id,
    agentId: task.assignedAgent,
    payload: {
      title: task.title,
      error: cutWhole(error, 2000),
      error_type: errorType,
      suggested_fix: suggestedFix,
      retry_count: retryCount,
      max_retries: task.maxRetries,
      will_retry: willRetry,
    },
  });
  if (willRetry) {
    const moved = await machine.fire(task.id, 'RETRY', { assignedAgent: null }, { from: ['FAILED'] });
    if (moved.ok) {
      await events.emit('task_retrying', {
        projectId: task.projectId,
        taskId: task.id,
        payload: {
          title: task.title,
          reason: `${errorType}: ${cutWhole(error, 300)}`,
          retry_count: retryCount,
          max_retries: task.maxRetries,
        },
      });
    }
    return;
  }
  const blocked = await machine.fire(task.id, 'MAX_RETRIES', { assignedAgent: null }, { from: ['FAILED'] });
  if (blocked.ok)
    await reportBlocked(
      deps.db,
      events,
      task,
      `Failed ${retryCount} of ${task.maxRetries} attempts. Last error (${errorType}): ${cutWhole(error, 300)}`,
    );
}
