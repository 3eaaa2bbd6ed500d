import type { EmFactory } from '../database';
import { RUNNING_SQL } from '../value-sets';
import { retryingTransaction } from '../retrying-transaction';
import { changes, pageSlice, placeholders } from './run-sql';

/** A FAILED task that nothing moved on: its run ended, and neither its retry nor its block landed. */
export interface StrandedFailure {
  id: string;
  title: string;
  projectId: string;
  retryCount: number;
  maxRetries: number;
}

/** A run record still open although no run holds its task any more. */
export interface OpenRunWithoutHolder {
  id: string;
  taskId: string;
  projectId: string;
  title: string;
  workerId: string | null;
  taskStatus: string;
}

const RUNNING = `(${RUNNING_SQL})`;
export const REPAIRS_KEY = 'task_repairs';

/**
 * The reconciler's queries (src/orchestrator/reconciler.ts): states that nothing will move, read
 * cheaply so a pass that finds nothing writes nothing.
 */
export class ReconciliationRepository {
  constructor(private readonly em: EmFactory) {}

  /** FAILED since before `before`, with no open run record. */
  async strandedFailures(before: number, limit = 100): Promise<StrandedFailure[]> {
    const rows = (await this.em().execute(
      `select t.id, t.title, t.project_id, t.retry_count, t.max_retries from tasks t
          where t.status = 'FAILED' and t.updated_at < ?
            and not exists (select 1 from task_runs r where r.task_id = t.id and r.ended_at is null)
          order by t.updated_at${pageSlice({ limit })}`,
      [before],
    )) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: String(r.id),
      title: String(r.title),
      projectId: String(r.project_id),
      retryCount: Number(r.retry_count),
      maxRetries: Number(r.max_retries),
    }));
  }

  /**
   * Whether the owner (the daemon: `null`; a worker: its name) has a task in a running status
   * (unchanged since `updatedBefore`), a BUSY agent or a locked workspace that none of
   * `liveTaskIds` accounts for (taskRuns.recoverStale puts those right).
   */
  async ownerHasStrays(liveTaskIds: string[], workerId: string | null, updatedBefore: number): Promise<boolean> {
    const keep = liveTaskIds.length ? liveTaskIds : [''];
    const marks = placeholders(keep);
    const owner = workerId === null ? 'is null' : '= ?';
    const who = workerId === null ? [] : [workerId];
    const rows = (await this.em().execute(
      `select
           (select count(*) from tasks where status in ${RUNNING} and claimed_by ${owner} and id not in (${marks})
              and updated_at < ?) as tasks,
           (select count(*) from agents where worker_id ${owner} and (state = 'BUSY' or current_task is not null)
              and (current_task is null or current_task not in (${marks}))) as agents,
           (select count(*) from workspaces where worker_id ${owner} and locked_by_task_id is not null
              and locked_by_task_id not in (${marks})) as locks`,
      [...who, ...keep, updatedBefore, ...who, ...keep, ...who, ...keep],
    )) as Array<{ tasks: number; agents: number; locks: number }>;
    const r = rows[0];
    return Number(r?.tasks ?? 0) + Number(r?.agents ?? 0) + Number(r?.locks ?? 0) > 0;
  }

  /** Run records still open, claimed before `before`, whose task is no longer held by them (it moved on, or another run holds it). */
  async openRunsWithoutHolder(before: number, limit = 100): Promise<OpenRunWithoutHolder[]> {
    const rows = (await this.em().execute(
      `select r.id, r.task_id, r.worker_id, t.project_id, t.title, t.status from task_runs r join tasks t on t.id = r.task_id
          where r.ended_at is null and r.claimed_at < ? and not (coalesce(t.current_run_id, '') = r.id and t.status in ${RUNNING})
          order by r.claimed_at${pageSlice({ limit })}`,
      [before],
    )) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: String(r.id),
      taskId: String(r.task_id),
      projectId: String(r.project_id),
      title: String(r.title),
      workerId: (r.worker_id as string | null) ?? null,
      taskStatus: String(r.status),
    }));
  }

  /** Ends a run record nobody holds (compare-and-set on it still being open and still unheld). */
  async closeRun(runId: string, now: number): Promise<boolean> {
    return (
      (await changes(
        this.em(),
        `update task_runs set ended_at = ?, outcome = 'RECONCILED'
          where id = ? and ended_at is null
            and not exists (select 1 from tasks t where t.id = task_runs.task_id and t.current_run_id = task_runs.id and t.status in ${RUNNING})`,
        [now, runId],
      )) > 0
    );
  }

  /** Counts repairs (get_status shows the total). */
  async countRepairs(n: number): Promise<void> {
    if (n <= 0) return;
    await retryingTransaction(this.em, (tx) =>
      tx.execute('insert into history_counts (name, n) values (?, ?) on conflict (name) do update set n = history_counts.n + excluded.n', [
        REPAIRS_KEY,
        n,
      ]),
    );
  }

  async repairs(): Promise<number> {
    const rows = (await this.em().execute('select n from history_counts where name = ?', [REPAIRS_KEY])) as Array<{
      n: number;
    }>;
    return Number(rows[0]?.n ?? 0);
  }
}
