import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { EmFactory } from '../database';
import { RUNNING_SQL, RUNNING_STATUSES, type TaskStatus } from '../value-sets';
import { TaskRepository, type TaskRecord } from './tasks';
import { changes, pageSlice } from './run-sql';
import { endRunOn } from './run-end';
import { retryingTransaction } from '../retrying-transaction';

/** One run of one task: who claimed it, and from when to when (milliseconds since the epoch). */
export interface RunRecord {
  id: string;
  taskId: string;
  workerId: string | null;
  agentId: string;
  workspaceId: string;
  claimedAt: number;
  endedAt: number | null;
  /**
   * The status the run left the task in (COMPLETED too when its agent finished and the task waits
   * for approval or to land), or RECOVERED / LEASE_EXPIRED / ENDED / STOPPED.
   */
  outcome: string | null;
}

/** A worker's claim whose lease ran out. */
export interface ExpiredClaim {
  id: string;
  title: string;
  projectId: string;
  status: string;
  claimedBy: string;
  runId: string | null;
}

const STILL_RUNNING: readonly TaskStatus[] = RUNNING_STATUSES;

/**
 * What a run did, from the status its last move left the task in. A run that leaves its task
 * AWAITING_APPROVAL finished its work: what remains (an approval, the merge train) is not the run's.
 */
function runOutcome(to: TaskStatus): string {
  return to === 'AWAITING_APPROVAL' ? 'COMPLETED' : to;
}

/**
 * The task queries, with one task's moves fenced on its run: a move of `taskId` lands only while
 * the task's current_run_id is `runId`, so a run whose claim lapsed (its worker lost the network
 * and the task went to another) can no longer move the task. A move that takes the task out of
 * ASSIGNED / IN_PROGRESS ends the run record in the same transaction, before anyone can claim it
 * again: run records of one task never overlap.
 */
export class FencedTaskRepository extends TaskRepository {
  constructor(
    factory: EmFactory,
    private readonly taskId: string,
    private readonly runId: string,
  ) {
    super(factory);
  }

  override async transition(
    id: string,
    from: TaskStatus[],
    to: TaskStatus,
    changes: Parameters<TaskRepository['transition']>[3] = {},
  ): Promise<TaskRecord | null> {
    if (id !== this.taskId) return super.transition(id, from, to, changes);
    // A move that keeps the run going is fenced; one that ends it closes its record with it.
    return super.transition(id, from, to, changes, {
      runId: this.runId,
      ...(!STILL_RUNNING.includes(to) && { endsRunAs: runOutcome(to) }),
    });
  }
}

/** Run records, the leases of workers' claims, and what happens when a lease runs out. */
export class RunRecordRepository {
  constructor(private readonly em: EmFactory) {}

  fencedTasks(taskId: string, runId: string): TaskRepository {
    return new FencedTaskRepository(this.em, taskId, runId);
  }

  /** Ends a run that is still open (a stop, a shutdown): `outcome` says how. */
  async endRun(runId: string, outcome: string, now = Date.now()): Promise<void> {
    await retryingTransaction(this.em, (em) => endRunOn(em as SqlEntityManager, runId, outcome, now));
  }

  /** A task's runs, oldest first. */
  async forTask(taskId: string): Promise<RunRecord[]> {
    return this.select('where task_id = ? order by claimed_at, id', [taskId]);
  }

  /** Every run record (for tests and checks), oldest first. */
  async all(limit = 10_000): Promise<RunRecord[]> {
    return this.select(`order by claimed_at, id${pageSlice({ limit })}`, []);
  }

  private async select(tail: string, params: unknown[]): Promise<RunRecord[]> {
    const rows = (await this.em().execute(
      `select id, task_id, worker_id, agent_id, workspace_id, claimed_at, ended_at, outcome from task_runs ${tail}`,
      params,
    )) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: String(r.id),
      taskId: String(r.task_id),
      workerId: (r.worker_id as string | null) ?? null,
      agentId: String(r.agent_id),
      workspaceId: String(r.workspace_id),
      claimedAt: Number(r.claimed_at),
      endedAt: r.ended_at === null || r.ended_at === undefined ? null : Number(r.ended_at),
      outcome: (r.outcome as string | null) ?? null,
    }));
  }

  /**
   * The heartbeat's renewal: every claim the worker holds whose lease has not lapsed by `now`
   * lasts until `until`. Returns the claims it still holds whose lease lapsed: another process
   * may reap them at any moment, so the worker ends those runs rather than race the next holder.
   */
  async renewLeases(workerId: string, now: number, until: number): Promise<{ renewed: number; lapsed: string[] }> {
    const renewed = await changes(
      this.em(),
      `update tasks set lease_expires_at = ?
        where claimed_by = ? and status in (${RUNNING_SQL}) and lease_expires_at >= ?`,
      [until, workerId, now],
    );
    const lapsed = (await this.em().execute(
      `select id from tasks where claimed_by = ? and status in (${RUNNING_SQL}) and lease_expires_at < ?`,
      [workerId, now],
    )) as Array<{ id: string }>;
    return { renewed, lapsed: lapsed.map((r) => r.id) };
  }

  /** Tasks a worker still holds that are not the runs it knows (its own recovery at start). */
  async claimsOf(workerId: string): Promise<Array<{ id: string; runId: string | null }>> {
    const rows = (await this.em().execute(`select id, current_run_id from tasks where claimed_by = ? and status in (${RUNNING_SQL})`, [
      workerId,
    ])) as Array<{ id: string; current_run_id: string | null }>;
    return rows.map((r) => ({ id: r.id, runId: r.current_run_id }));
  }

  /** Claims whose lease ran out (their worker stopped heartbeating), oldest first. */
  async expiredClaims(now: number, limit = 100): Promise<ExpiredClaim[]> {
    const rows = (await this.em().execute(
      `select id, title, project_id, status, claimed_by, current_run_id from tasks
          where claimed_by is not null and lease_expires_at < ? and status in (${RUNNING_SQL})
          order by lease_expires_at${pageSlice({ limit })}`,
      [now],
    )) as Array<Record<string, string | null>>;
    return rows.map((r) => ({
      id: String(r.id),
      title: String(r.title),
      projectId: String(r.project_id),
      status: String(r.status),
      claimedBy: String(r.claimed_by),
      runId: r.current_run_id,
    }));
  }

  /**
   * Takes back one lapsed claim, compare-and-set on the lease still being lapsed (a heartbeat
   * that came meanwhile keeps it): the claim goes, `requeue` moves the task (the state machine,
   * on this transaction, back to READY), the run record ends, and the dead worker's agent is
   * marked free. Its workspace stays locked and owned by it: no one else touches it.
   */
  async reap(claim: ExpiredClaim, now: number, requeue: (tx: SqlEntityManager) => Promise<boolean>): Promise<boolean> {
    return retryingTransaction(this.em, async (em) => {
      const tx = em as SqlEntityManager;
      const taken = await changes(
        tx,
        'update tasks set claimed_by = null, lease_expires_at = null where id = ? and claimed_by = ? and lease_expires_at < ?',
        [claim.id, claim.claimedBy, now],
      );
      if (taken === 0) return false;
      if (!(await requeue(tx))) {
        // Moved meanwhile by someone else: put the claim back as it was, for its owner to settle.
        throw new ReapRaced();
      }
      if (claim.runId) await endRunOn(tx, claim.runId, 'LEASE_EXPIRED', now);
      await tx.execute(
        "update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null where current_task = ? and worker_id = ?",
        [claim.id, claim.claimedBy],
      );
      return true;
    }).catch((err) => {
      if (err instanceof ReapRaced) return false;
      throw err;
    });
  }
}

class ReapRaced extends Error {}
