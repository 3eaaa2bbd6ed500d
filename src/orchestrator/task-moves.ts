import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database';
import type { LaunchClaim, LaunchRefusal } from '../db/repositories/task-runs';
import type { TaskStateMachine } from './state-machine';

/**
 * Claims a launch: workspace lock, the scheduler's rules checked again (project cap, pauses,
 * budgets, quota, dependencies), the task READY → ASSIGNED (ASSIGN) with its agent, workspace
 * and run, the agent BUSY, and the run record, in one transaction. Null on success, else why
 * not. Without a `runId` one is made up (read it back from the task's current_run_id).
 */
export function claimLaunch(
  db: Database,
  machine: TaskStateMachine,
  a: Omit<LaunchClaim, 'runId'> & { runId?: string },
): Promise<LaunchRefusal | null> {
  const runId = a.runId ?? randomUUID();
  return db.taskRuns.claimLaunch({ ...a, runId }, async (tx) => {
    const moved = await machine
      .within(tx)
      .fire(
        a.taskId,
        'ASSIGN',
        { assignedAgent: a.agentId, workspaceId: a.workspaceId, currentRunId: runId },
        { from: ['READY'], quiet: true },
      );
    return moved.ok;
  });
}

/**
 * DEFINED tasks whose upstream tasks are all COMPLETED move to READY (DEPS_MET) and are
 * returned. `scope`: a task id (its direct dependants), `{ ids }` (those tasks), or every task.
 */
export function promoteWaiting(
  db: Database,
  machine: TaskStateMachine,
  scope?: string | { ids: string[] },
): Promise<Array<{ id: string; title: string; projectId: string }>> {
  return db.tasks.promoteDefined(
    scope,
    async (tx, taskId) => (await machine.within(tx).fire(taskId, 'DEPS_MET', {}, { from: ['DEFINED'] })).ok,
  );
}
