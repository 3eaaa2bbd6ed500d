import type { Database } from '../db/database';
import { TaskStateMachine } from './state-machine';
import { runTask, type RunHandle, type RunnerDeps } from './task-runner';
import { errorMessage } from '../util/error-message';

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
      .catch((err) => deps.log(`Closing run ${handle.runId} of ${handle.taskId} failed: ${errorMessage(err)}`)),
  );
}

/**
 * Ends each running run whose task was moved behind its back (a stop from Slack or `aq`) or
 * whose claim went to another run. A run is still its task's while the task is IN_PROGRESS or
 * WAITING_INPUT (its agent waits for a person's answer) with this run's id.
 */
export async function abortOrphanedRuns(db: Database, runs: Iterable<ClaimedRunHandle>, log: (message: string) => void): Promise<void> {
  for (const run of runs) {
    if (run.phase !== 'running' || run.controller.signal.aborted) continue;
    const task = await db.tasks.get(run.taskId);
    const running = task?.status === 'IN_PROGRESS' || task?.status === 'WAITING_INPUT';
    if (!running || task.currentRunId !== run.runId) {
      log(`Task ${run.taskId} is ${task?.status ?? 'gone'} and no longer this run's; ending the run.`);
      run.controller.abort();
    }
  }
}
