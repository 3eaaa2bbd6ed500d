import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { EmFactory } from '../database';
import { RUNNING_SQL } from '../value-sets';
import { fleetRefusal, type FleetRefusal } from './claim-checks';
import { isPostgres } from '../dialect';
import { changes, pageSlice, placeholders } from './run-sql';
import { retryingTransaction } from '../retrying-transaction';

export type LaunchRefusal = 'workspace_busy' | 'task_not_ready' | 'agent_not_idle' | FleetRefusal;

/** One launch to claim: which task, on which agent and workspace, for which run and worker. */
export interface LaunchClaim {
  taskId: string;
  agentId: string;
  workspaceId: string;
  /** The run record's id (task_runs.id); the task's current_run_id fences the run's moves. */
  runId: string;
  /** The `aq worker` that will run it; null for the app's own daemon. */
  workerId?: string | null;
  /** A worker's claim lapses this long after its last heartbeat renewed it. */
  leaseMs?: number;
  /** Read at each attempt: a claim retried after a lost race is stamped when it lands. */
  clock?: () => Date;
}

class Refused extends Error {
  constructor(readonly reason: LaunchRefusal) {
    super(reason);
  }
}

/** A workspace lock not held by a task waiting in the merge train (its holder lands it there). */
export const NOT_QUEUED_TO_LAND = `not exists (select 1 from merge_train m where m.task_id = workspaces.locked_by_task_id and m.state <> 'sent_back')`;

/** The SQL for an atomic workspace lock: free row, and no other row for the same path locked. */
const LOCK_WORKSPACE = `update workspaces set locked_by_task_id = ?, locked_by_agent_id = ?, locked_at = ?
  where id = ? and locked_by_task_id is null
    and not exists (select 1 from workspaces other
                     where other.path = workspaces.path and other.id <> workspaces.id
                       and other.locked_by_task_id is not null)`;

const TAKE_AGENT =
  "update agents set state = 'BUSY', current_task = ?, last_heartbeat = ? where id = ? and state = 'IDLE' and current_task is null";

/**
 * A free slot of the project bound to the run (PostgreSQL): the last lock a claim takes, passed
 * over when another claim holds it, so a claim never waits here and holds nothing it waits for
 * after. No free slot: the project is at its cap. The read of the running tasks in fleetRefusal
 * turns most such claims away earlier; this is what holds under concurrent claims.
 */
const TAKE_SLOT = `update project_slots set run_id = ?
  where (project_id, slot) = (select project_id, slot from project_slots
                               where project_id = ? and run_id is null and not retired
                               limit 1 for update skip locked)`;

/**
 * The last three writes of a claim on PostgreSQL in one statement, in LOCK-ORDER.md's order: the
 * agent, then its workspace, then a slot. Each step waits on a one-time check that reads the one
 * before, which PostgreSQL makes before it reads any row of its own table, so a step runs only
 * when the one before it took its row. What did not happen says why the claim is refused; the
 * transaction then rolls back the steps that did.
 */
async function takeAgentWorkspaceAndSlot(
  tx: SqlEntityManager,
  claim: { taskId: string; agentId: string; workspaceId: string; runId: string; projectId: string; now: number },
): Promise<void> {
  const [taken] = await tx.execute<Array<{ agent: number; workspace: number; slot: number }>>(
    `with agent as (${TAKE_AGENT} returning 1),
      workspace as (${LOCK_WORKSPACE} and (select count(*) from agent) > 0 returning 1),
      slot as (${TAKE_SLOT} and (select count(*) from workspace) > 0 returning 1)
    select (select count(*) from agent) as agent, (select count(*) from workspace) as workspace, (select count(*) from slot) as slot`,
    [claim.taskId, claim.now, claim.agentId, claim.taskId, claim.agentId, claim.now, claim.workspaceId, claim.runId, claim.projectId],
  );
  if (Number(taken?.agent) === 0) throw new Refused('agent_not_idle');
  if (Number(taken?.workspace) === 0) throw new Refused('workspace_busy');
  if (Number(taken?.slot) === 0) throw new Refused('project_full');
}

/**
 * The writes that start and end an agent run. Each is compare-and-set in one transaction, so
 * two processes (or two loops) can never launch the same task, share a workspace, or double-book
 * an agent.
 */
export class TaskRunRepository {
  constructor(private readonly em: EmFactory) {}

  /** Locks the workspace for the task (compare-and-set); false when someone holds it. */
  async lockWorkspace(workspaceId: string, taskId: string, agentId: string | null): Promise<boolean> {
    return (await changes(this.em(), LOCK_WORKSPACE, [taskId, agentId, Date.now(), workspaceId])) > 0;
  }

  /**
   * Workspace lock + the fleet's rules read again + task READY→ASSIGNED + agent IDLE→BUSY + the
   * claim (claimed_by, lease) and its run record, all or nothing. On PostgreSQL the task row is
   * taken with FOR UPDATE SKIP LOCKED (a task another claimer holds is passed over at once), and
   * last a free slot of its project (project_slots, SKIP LOCKED too): the slots are the project's
   * concurrency cap, so claims of one project never wait for each other; the rest follows
   * LOCK-ORDER.md. On SQLite the first statement is a write, which takes the database's single
   * write lock, so the reads after it (the cap among them) are compare-and-set with the writes.
   * Retried whole when it loses a race (retrying-transaction.ts). `assign` makes the task's move
   * (the state machine, on this transaction). Returns null on success or why it was refused.
   */
  async claimLaunch(input: LaunchClaim, assign: (tx: SqlEntityManager) => Promise<boolean>): Promise<LaunchRefusal | null> {
    const workerId = input.workerId ?? null;
    try {
      await retryingTransaction(this.em, async (em) => {
        const tx = em as SqlEntityManager;
        const now = input.clock?.() ?? new Date();
        const pg = isPostgres(tx);
        let projectId = '';
        if (pg) {
          // The task, passed over when another claimer holds it (LOCK-ORDER.md, 1).
          const free = await tx.execute(`select id, project_id from tasks where id = ? and status = 'READY' for update skip locked`, [
            input.taskId,
          ]);
          if ((free as unknown[]).length === 0) throw new Refused('task_not_ready');
          projectId = String((free as Array<{ project_id: string }>)[0].project_id);
        } else if ((await changes(tx, LOCK_WORKSPACE, [input.taskId, input.agentId, now.getTime(), input.workspaceId])) === 0) {
          // SQLite: a write first takes the database's one write lock, so the reads below are current.
          throw new Refused('workspace_busy');
        }
        const refusal = await fleetRefusal(tx, input.taskId, input.agentId, now);
        if (refusal) throw new Refused(refusal);
        if (!(await assign(tx))) throw new Refused('task_not_ready');
        const lease = workerId ? now.getTime() + (input.leaseMs ?? 30_000) : null;
        const run = [input.runId, input.taskId, workerId, input.agentId, input.workspaceId, now.getTime()];
        if (pg) {
          // The claim and its run record in one round trip (tasks, then task_runs: LOCK-ORDER.md).
          await tx.execute(
            `with claimed as (update tasks set current_run_id = ?, claimed_by = ?, lease_expires_at = ? where id = ? returning id)
             insert into task_runs (id, task_id, worker_id, agent_id, workspace_id, claimed_at)
               values (?, (select id from claimed), ?, ?, ?, ?)`,
            [input.runId, workerId, lease, input.taskId, run[0], run[2], run[3], run[4], run[5]],
          );
          await takeAgentWorkspaceAndSlot(tx, { ...input, projectId, now: now.getTime() });
          return;
        }
        await tx.execute('update tasks set current_run_id = ?, claimed_by = ?, lease_expires_at = ? where id = ?', [
          input.runId,
          workerId,
          lease,
          input.taskId,
        ]);
        await tx.execute(
          'insert into task_runs (id, task_id, worker_id, agent_id, workspace_id, claimed_at) values (?, ?, ?, ?, ?, ?)',
          run,
        );
        if ((await changes(tx, TAKE_AGENT, [input.taskId, now.getTime(), input.agentId])) === 0) throw new Refused('agent_not_idle');
      });
      return null;
    } catch (err) {
      if (err instanceof Refused) return err.reason;
      throw err;
    }
  }

  /**
   * A person's stop: `stop` moves the task out of IN_PROGRESS (the state machine, on this
   * transaction); when it lands, its run record ends, its claim goes, the agent working it is
   * free again and its workspace locks go, in the same transaction. Returns whether the task moved.
   */
  async stopRun(taskId: string, stop: (tx: SqlEntityManager) => Promise<boolean>): Promise<boolean> {
    return retryingTransaction(this.em, async (em) => {
      const tx = em as SqlEntityManager;
      if (!(await stop(tx))) return false;
      // The stopped run's record ends now, not when its worker notices: a restart may start the
      // next run before then, and run records of one task never overlap.
      await tx.execute(
        "update task_runs set ended_at = ?, outcome = 'STOPPED' where ended_at is null and id = (select current_run_id from tasks where id = ?)",
        [Date.now(), taskId],
      );
      await tx.execute('update tasks set claimed_by = null, lease_expires_at = null where id = ?', [taskId]);
      await tx.execute(
        "update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null where current_task = ?",
        [taskId],
      );
      await tx.execute(
        'update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null where locked_by_task_id = ?',
        [taskId],
      );
      return true;
    });
  }

  /**
   * After a run, whatever happened: the task's lock on the run's workspace goes (only that one: by
   * then another worker may hold the task elsewhere), and the agent is free again (unless it was
   * paused meanwhile, or already moved on to another task).
   */
  async finishRun(taskId: string, agentId: string, workspaceId?: string): Promise<void> {
    const freeAgent =
      "update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null where id = ? and current_task = ?";
    // A task queued to land keeps its workspace: the train lands it there, and no other task
    // may take it meanwhile (a killed worker's runs keep theirs, which would stall the train).
    const freeWorkspace = `update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null
      where locked_by_task_id = ?${workspaceId ? ' and id = ?' : ''} and ${NOT_QUEUED_TO_LAND}`;
    const workspaceParams = workspaceId ? [taskId, workspaceId] : [taskId];
    const em = this.em();
    if (isPostgres(em)) {
      // One statement where begin, two updates and commit were four round trips. The agent's
      // update runs first, as LOCK-ORDER.md asks: the workspaces' update waits on a one-time
      // check that reads it, which PostgreSQL makes before it reads any workspace.
      await changes(em, `with agent as (${freeAgent} returning id) ${freeWorkspace} and (select count(*) from agent) >= 0`, [
        agentId,
        taskId,
        ...workspaceParams,
      ]);
      return;
    }
    await retryingTransaction(this.em, async (tx) => {
      await tx.execute(freeAgent, [agentId, taskId]);
      await tx.execute(freeWorkspace, workspaceParams);
    });
  }

  /**
   * Crash recovery of one owner — the app's daemon (`workerId` null) or one worker restarting
   * under its name: each task it left ASSIGNED, IN_PROGRESS or WAITING_INPUT is offered to `requeue` (the state
   * machine, on this transaction, back to READY) and its run record ends, its BUSY agents become
   * IDLE, and its workspace locks not held by one of `liveTaskIds` are released. What other
   * workers hold is never touched (their claims lapse through their leases). With
   * `updatedBefore`, only tasks unchanged since then (the reconciler's grace). Returns the tasks
   * that were put back.
   */
  async recoverStale(
    liveTaskIds: string[],
    requeue: (tx: SqlEntityManager, taskId: string) => Promise<boolean>,
    workerId: string | null = null,
    updatedBefore = Number.MAX_SAFE_INTEGER,
  ): Promise<{
    tasks: Array<{ id: string; title: string; projectId: string; status: string }>;
    agents: number;
    locks: number;
  }> {
    const keep = liveTaskIds.length ? liveTaskIds : [''];
    const marks = placeholders(keep);
    const owner = workerId === null ? 'is null' : '= ?';
    const who = workerId === null ? [] : [workerId];
    return retryingTransaction(this.em, async (em) => {
      const tx = em as SqlEntityManager;
      const stale = await tx.execute<
        Array<{ id: string; title: string; project_id: string; status: string; current_run_id: string | null }>
      >(
        `select id, title, project_id, status, current_run_id from tasks
          where status in (${RUNNING_SQL}) and claimed_by ${owner} and id not in (${marks})
            and updated_at < ?`,
        [...who, ...keep, updatedBefore],
      );
      const requeued: typeof stale = [];
      for (const t of stale) {
        if (!(await requeue(tx, t.id))) continue;
        requeued.push(t);
        await tx.execute("update task_runs set ended_at = ?, outcome = 'RECOVERED' where id = ? and ended_at is null", [
          Date.now(),
          t.current_run_id,
        ]);
        await tx.execute('update tasks set claimed_by = null, lease_expires_at = null where id = ?', [t.id]);
      }
      const agents = await changes(
        tx,
        `update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null
          where worker_id ${owner} and (state = 'BUSY' or current_task is not null)
            and (current_task is null or current_task not in (${marks}))`,
        [...who, ...keep],
      );
      // Workspaces last, as every transaction takes its locks (LOCK-ORDER.md).
      const locks = await changes(
        tx,
        `update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null
          where worker_id ${owner} and locked_by_task_id is not null and locked_by_task_id not in (${marks})
            and ${NOT_QUEUED_TO_LAND}`,
        [...who, ...keep],
      );
      return { tasks: requeued.map((t) => ({ id: t.id, title: t.title, projectId: t.project_id, status: t.status })), agents, locks };
    });
  }

  /** PAUSED tasks whose resume time has come (oldest first). */
  async dueToResume(now: Date, limit = 200): Promise<Array<{ id: string; title: string; projectId: string }>> {
    const rows = await this.em().execute<Array<{ id: string; title: string; project_id: string }>>(
      `select id, title, project_id from tasks where status = 'PAUSED' and (resume_after is null or resume_after <= ?) order by resume_after${pageSlice({ limit })}`,
      [now.getTime()],
    );
    return rows.map((r) => ({ id: r.id, title: r.title, projectId: r.project_id }));
  }

  /** The plan subtask that runs after `taskId` in the same chain, if any. */
  async nextInChain(taskId: string, parentTaskId: string): Promise<string | null> {
    const rows = await this.em().execute<Array<{ id: string }>>(
      'select t.id from task_dependencies d join tasks t on t.id = d.task_id where d.depends_on_id = ? and t.parent_task_id = ? and t.is_plan_subtask = true limit 1',
      [taskId, parentTaskId],
    );
    return rows[0]?.id ?? null;
  }

  /** Consecutive rate-limit pauses of a task's latest results (for the backoff). */
  async recentRateLimitPauses(taskId: string, window = 8): Promise<number> {
    const rows = await this.em().execute<Array<{ result: string }>>(
      `select result from task_results where task_id = ? order by id desc${pageSlice({ limit: window })}`,
      [taskId],
    );
    let n = 0;
    for (const r of rows) {
      if (r.result !== 'PAUSED_RATE_LIMIT') break;
      n++;
    }
    return n;
  }
}
