import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { RUNNING_SQL } from '../value-sets';

/** Closes a run's record, once: its parameters are the end time, the outcome and the run's id. */
export const CLOSE_RUN_RECORD = 'update task_runs set ended_at = ?, outcome = ? where id = ? and ended_at is null';

/**
 * Ends the run record and lets go of the task's claim, if the task is still the run's and no
 * longer running. A task the run left running (its last move failed) keeps the claim, so its
 * worker's reconciler, or the reaper once the lease lapses, puts it back. (On PostgreSQL a run's
 * own last move does both in its statement: TaskRepository.transition with `endsRunAs`.)
 */
export async function endRunOn(tx: SqlEntityManager, runId: string, outcome: string, now: number): Promise<void> {
  await tx.execute(CLOSE_RUN_RECORD, [now, outcome, runId]);
  // The task through its run record's key: current_run_id has no index, and a scan of every task
  // at each run's end was most of what PostgreSQL did in the claims bench.
  await tx.execute(
    `update tasks set claimed_by = null, lease_expires_at = null
      where id = (select task_id from task_runs where id = ?) and current_run_id = ? and status not in (${RUNNING_SQL})`,
    [runId, runId],
  );
}
