import type { Database } from '../db/database';
import type { EventLog } from './events';
import type { TaskStateMachine } from './state-machine';

export interface RecoveryReport {
  tasks: Array<{ id: string; title: string }>;
  agents: number;
  locks: number;
}

/**
 * Reconciles what a dead daemon left behind: its ASSIGNED / IN_PROGRESS tasks go back to READY
 * (retry count unchanged — the crash was not the task's fault), BUSY agents become IDLE, and
 * workspace locks not held by a run of this process are released. Only the lease holder calls
 * this, so a second daemon can never "recover" the first one's live runs.
 */
export async function recoverStaleState(
  db: Database,
  events: EventLog,
  machine: TaskStateMachine,
  liveTaskIds: string[],
): Promise<RecoveryReport> {
  const { tasks, agents, locks } = await db.taskRuns.recoverStale(liveTaskIds, async (tx, taskId) => {
    const moved = await machine.within(tx).fire(
      taskId,
      'RECOVERY',
      { assignedAgent: null },
      {
        from: ['ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT'],
      },
    );
    return moved.ok;
  });
  for (const t of tasks) {
    // Questions its dead run asked can no longer be answered to it.
    await db.agentRequests.cancelForTask(t.id);
    const task = await db.tasks.get(t.id);
    await events.emit('task_retrying', {
      projectId: t.projectId,
      taskId: t.id,
      payload: {
        title: t.title,
        reason: 'recovered after restart',
        previous_status: t.status,
        retry_count: task?.retryCount ?? 0,
        max_retries: task?.maxRetries ?? 0,
      },
    });
  }
  return { tasks: tasks.map((t) => ({ id: t.id, title: t.title })), agents, locks };
}
