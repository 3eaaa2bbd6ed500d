import { TaskStateMachine } from './state-machine';
import { runTask, type RunHandle, type RunnerDeps } from './task-runner';

/** A launch that won its claim: the run record it created is `runId`. */
export type ClaimedRunHandle = RunHandle & { runId: string };

/**
 * Runs a claimed task with every move of it fenced on its run (a run whose claim lapsed cannot
 * move the task any more), and closes its run record when the run ends, if nothing closed it
 * before (a stop from Slack moves the task without the run).
 */
export function runClaimed(deps: RunnerDeps, handle: ClaimedRunHandle): Promise<void> {
  const machine = new TaskStateMachine({ tasks: deps.db.runRecords.fencedTasks(handle.taskId, handle.runId) }, deps.log);
  return runTask({ ...deps, machine }, handle).finally(() =>
    deps.db.runRecords
      .endRun(handle.runId, handle.controller.signal.aborted ? 'STOPPED' : 'ENDED')
      .catch((err) =>
        deps.log(`Closing run ${handle.runId} of ${handle.taskId} failed: ${err instanceof Error ? err.message : String(err)}`),
      ),
  );
}
