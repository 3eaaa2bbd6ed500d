import type { Database } from '../db/database';
import { RUNNING_STATUSES } from '../db/value-sets';
import { reportBlocked } from './completion';
import type { EventLog } from './events';
import type { TaskStateMachine } from './state-machine';

/** Whose runs a pass may call gone: the daemon's (`workerId` null) or one worker's. FAILED tasks and run records are the fleet's. */
export interface ReconcileScope {
  workerId: string | null;
  /** Tasks with a live run in this process. */
  liveTaskIds: string[];
  /** A state is left this long to the process that made it before it counts as stranded. */
  graceMs: number;
  now: Date;
}

export interface Repair {
  taskId: string;
  repair: 'requeued' | 'retried' | 'blocked' | 'run_closed';
  reason: string;
}

/**
 * Finds tasks that nothing will move and moves them on through the state machine, each with a
 * `task_reconciled` event saying what was repaired and why. Such states come from a write that
 * failed through every retry or a process that died between two writes:
 * - a task ASSIGNED, IN_PROGRESS or WAITING_INPUT that this owner's process does not run (its run
 *   is gone): back to READY (RECOVERY), with the owner's stray agents and workspace locks freed;
 * - a task FAILED with no open run: RETRY while retries remain, else MAX_RETRIES (BLOCKED);
 * - a run record still open although its task no longer belongs to it: closed.
 * Leases of workers that died are reaped elsewhere (recovery.ts).
 */
export async function reconcile(db: Database, events: EventLog, machine: TaskStateMachine, scope: ReconcileScope): Promise<Repair[]> {
  const repairs: Repair[] = [];
  const before = scope.now.getTime() - scope.graceMs;
  const owner = scope.workerId === null ? 'the daemon' : `worker ${scope.workerId}`;

  if (await db.reconciliation.ownerHasStrays(scope.liveTaskIds, scope.workerId, before)) {
    const { tasks } = await db.taskRuns.recoverStale(
      scope.liveTaskIds,
      async (tx, taskId) =>
        (await machine.within(tx).fire(taskId, 'RECOVERY', { assignedAgent: null }, { from: [...RUNNING_STATUSES], quiet: true })).ok,
      scope.workerId,
      before,
    );
    for (const t of tasks) {
      await db.agentRequests.cancelForTask(t.id);
      repairs.push({ taskId: t.id, repair: 'requeued', reason: `it was ${t.status} but no run of ${owner} held it` });
      await emit(events, t.projectId, t.id, t.title, t.status, repairs[repairs.length - 1]);
    }
  }

  // Any process may repair these: the moves are compare-and-set, so two that try at once make one move.
  for (const f of await db.reconciliation.strandedFailures(before)) {
    const willRetry = f.retryCount < f.maxRetries;
    const moved = await machine.fire(f.id, willRetry ? 'RETRY' : 'MAX_RETRIES', { assignedAgent: null }, { from: ['FAILED'], quiet: true });
    if (!moved.ok) continue;
    const repair: Repair = willRetry
      ? {
          taskId: f.id,
          repair: 'retried',
          reason: `it was FAILED after ${f.retryCount} of ${f.maxRetries} attempts and nothing retried it`,
        }
      : { taskId: f.id, repair: 'blocked', reason: `it was FAILED after its last attempt and nothing blocked it` };
    repairs.push(repair);
    await emit(events, f.projectId, f.id, f.title, 'FAILED', repair);
    if (!willRetry && moved.task) await reportBlocked(db, events, moved.task, `Failed ${f.retryCount} of ${f.maxRetries} attempts.`);
  }

  for (const run of await db.reconciliation.openRunsWithoutHolder(before)) {
    if (!(await db.reconciliation.closeRun(run.id, scope.now.getTime()))) continue;
    const repair: Repair = {
      taskId: run.taskId,
      repair: 'run_closed',
      reason: `its run ${run.id} was still open although the task is ${run.taskStatus} and no longer that run's`,
    };
    repairs.push(repair);
    await emit(events, run.projectId, run.taskId, run.title, run.taskStatus, repair);
  }

  await db.reconciliation.countRepairs(repairs.length);
  return repairs;
}

async function emit(events: EventLog, projectId: string, taskId: string, title: string, previous: string, repair: Repair) {
  await events.emit('task_reconciled', {
    projectId,
    taskId,
    payload: { title, repair: repair.repair, reason: repair.reason, previous_status: previous },
  });
}
