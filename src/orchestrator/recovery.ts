import type { Database } from '../db/database';
import { RUNNING_STATUSES } from '../db/value-sets';
import type { EventLog } from './events';
import type { TaskStateMachine } from './state-machine';

export interface RecoveryReport {
  tasks: Array<{ id: string; title: string }>;
  agents: number;
  locks: number;
}

/**
 * Reconciles what a dead daemon (or this worker's previous life, `workerId`) left behind: its
 * ASSIGNED / IN_PROGRESS tasks go back to READY (retry count unchanged — the crash was not the
 * task's fault), its BUSY agents become IDLE, and its workspace locks not held by a run of this
 * process are released. Only the lease holder (or the worker under its own name) calls this, so
 * a second daemon can never "recover" the first one's live runs, nor the app a worker's.
 */
export async function recoverStaleState(
  db: Database,
  events: EventLog,
  machine: TaskStateMachine,
  liveTaskIds: string[],
  workerId: string | null = null,
): Promise<RecoveryReport> {
  const { tasks, agents, locks } = await db.taskRuns.recoverStale(
    liveTaskIds,
    async (tx, taskId) => {
      const moved = await machine.within(tx).fire(taskId, 'RECOVERY', { assignedAgent: null }, { from: [...RUNNING_STATUSES] });
      return moved.ok;
    },
    workerId,
  );
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

/**
 * Claims of workers that stopped heartbeating (kill -9, lost network) lapse: each task goes back
 * to READY with its retry count unchanged, to run again on another worker, and its run record
 * ends. The dead worker's workspaces stay as they are. Any process may reap; each claim is
 * taken back once (compare-and-set on the lapsed lease).
 */
export async function reapLapsedClaims(
  db: Database,
  events: EventLog,
  machine: TaskStateMachine,
  now: Date,
): Promise<Array<{ id: string; worker: string }>> {
  const reaped: Array<{ id: string; worker: string }> = [];
  for (const claim of await db.runRecords.expiredClaims(now.getTime())) {
    const taken = await db.runRecords.reap(claim, now.getTime(), async (tx) => {
      const moved = await machine
        .within(tx)
        .fire(claim.id, 'RECOVERY', { assignedAgent: null }, { from: [...RUNNING_STATUSES], quiet: true });
      return moved.ok;
    });
    if (!taken) continue;
    reaped.push({ id: claim.id, worker: claim.claimedBy });
    // Questions the lost run asked can no longer be answered to it.
    await db.agentRequests.cancelForTask(claim.id);
    const task = await db.tasks.get(claim.id);
    await events.emit('task_retrying', {
      projectId: claim.projectId,
      taskId: claim.id,
      payload: {
        title: claim.title,
        reason: `worker ${claim.claimedBy} stopped answering`,
        previous_status: claim.status,
        retry_count: task?.retryCount ?? 0,
        max_retries: task?.maxRetries ?? 0,
      },
    });
  }
  return reaped;
}
