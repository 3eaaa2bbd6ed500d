import type { Database } from '../db/database';
import type { LaunchRefusal } from '../db/repositories/task-runs';
import type { TaskStateMachine } from './state-machine';

/**
 * Claims a launch: workspace lock, the task READY → ASSIGNED (ASSIGN) with its agent and
 * workspace, and the agent BUSY, in one transaction. Null on success, else why not.
 */
export function claimLaunch(
  db: Database,
  machine: TaskStateMachine,
  a: { taskId: string; agentId: string; workspaceId: string },
): Promise<LaunchRefusal | null> {
  return db.taskRuns.claimLaunch(a, async (tx) => {
    const moved = await machine
      .within(tx)
      .fire(a.taskId, 'ASSIGN', { assignedAgent: a.agentId, workspaceId: a.workspaceId }, { from: ['READY'], quiet: true });
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
