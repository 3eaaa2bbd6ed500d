import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { EmFactory } from '../database';

export type LaunchRefusal = 'workspace_busy' | 'task_not_ready' | 'agent_not_idle';

class Refused extends Error {
  constructor(readonly reason: LaunchRefusal) {
    super(reason);
  }
}

async function changes(em: SqlEntityManager, sql: string, params: unknown[]): Promise<number> {
  const result = (await em.execute(sql, params, 'run')) as { affectedRows?: number };
  return Number(result.affectedRows ?? 0);
}

/** The SQL for an atomic workspace lock: free row, and no other row for the same path locked. */
const LOCK_WORKSPACE = `update workspaces set locked_by_task_id = ?, locked_by_agent_id = ?, locked_at = ?
  where id = ? and locked_by_task_id is null
    and not exists (select 1 from workspaces other
                     where other.path = workspaces.path and other.id <> workspaces.id
                       and other.locked_by_task_id is not null)`;

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
   * Workspace lock + task READY→ASSIGNED + agent IDLE→BUSY, all or nothing. `assign` makes the
   * task's move (the state machine, on this transaction) and says whether it landed. Returns
   * null on success or why it was refused (nothing is written then).
   */
  async claimLaunch(
    input: { taskId: string; agentId: string; workspaceId: string },
    assign: (tx: SqlEntityManager) => Promise<boolean>,
  ): Promise<LaunchRefusal | null> {
    const now = Date.now();
    try {
      await this.em().transactional(async (em) => {
        const tx = em as SqlEntityManager;
        if ((await changes(tx, LOCK_WORKSPACE, [input.taskId, input.agentId, now, input.workspaceId])) === 0) {
          throw new Refused('workspace_busy');
        }
        if (!(await assign(tx))) throw new Refused('task_not_ready');
        const agent = await changes(
          tx,
          "update agents set state = 'BUSY', current_task = ?, last_heartbeat = ? where id = ? and state = 'IDLE' and current_task is null",
          [input.taskId, now, input.agentId],
        );
        if (agent === 0) throw new Refused('agent_not_idle');
      });
      return null;
    } catch (err) {
      if (err instanceof Refused) return err.reason;
      throw err;
    }
  }

  /**
   * A person's stop: `stop` moves the task out of IN_PROGRESS (the state machine, on this
   * transaction); when it lands, the agent working it is free again and its workspace locks
   * go, in the same transaction. Returns whether the task moved.
   */
  async stopRun(taskId: string, stop: (tx: SqlEntityManager) => Promise<boolean>): Promise<boolean> {
    return this.em().transactional(async (em) => {
      const tx = em as SqlEntityManager;
      if (!(await stop(tx))) return false;
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
   * After a run, whatever happened: the task's workspace locks go, and the agent is free again
   * (unless it was paused meanwhile, or already moved on to another task).
   */
  async finishRun(taskId: string, agentId: string): Promise<void> {
    await this.em().transactional(async (em) => {
      const tx = em as SqlEntityManager;
      await tx.execute(
        'update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null where locked_by_task_id = ?',
        [taskId],
      );
      await tx.execute(
        "update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null where id = ? and current_task = ?",
        [agentId, taskId],
      );
    });
  }

  /**
   * Crash recovery: each task left ASSIGNED or IN_PROGRESS by a dead daemon is offered to
   * `requeue` (the state machine, on this transaction, back to READY), BUSY agents become IDLE,
   * and every workspace lock not held by one of `liveTaskIds` is released. Returns the tasks
   * that were put back.
   */
  async recoverStale(
    liveTaskIds: string[],
    requeue: (tx: SqlEntityManager, taskId: string) => Promise<boolean>,
  ): Promise<{
    tasks: Array<{ id: string; title: string; projectId: string; status: string }>;
    agents: number;
    locks: number;
  }> {
    const keep = liveTaskIds.length ? liveTaskIds : [''];
    const marks = keep.map(() => '?').join(', ');
    return this.em().transactional(async (em) => {
      const tx = em as SqlEntityManager;
      const stale = await tx.execute<Array<{ id: string; title: string; project_id: string; status: string }>>(
        `select id, title, project_id, status from tasks where status in ('ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT') and id not in (${marks})`,
        keep,
      );
      const requeued: typeof stale = [];
      for (const t of stale) if (await requeue(tx, t.id)) requeued.push(t);
      const agents = await changes(
        tx,
        `update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null
          where (state = 'BUSY' or current_task is not null) and (current_task is null or current_task not in (${marks}))`,
        keep,
      );
      const locks = await changes(
        tx,
        `update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null
          where locked_by_task_id is not null and locked_by_task_id not in (${marks})`,
        keep,
      );
      return { tasks: requeued.map((t) => ({ id: t.id, title: t.title, projectId: t.project_id, status: t.status })), agents, locks };
    });
  }

  /** PAUSED tasks whose resume time has come (oldest first). */
  async dueToResume(now: Date, limit = 200): Promise<Array<{ id: string; title: string; projectId: string }>> {
    const rows = await this.em()
      .getConnection()
      .execute<Array<{ id: string; title: string; project_id: string }>>(
        "select id, title, project_id from tasks where status = 'PAUSED' and (resume_after is null or resume_after <= ?) order by resume_after limit ?",
        [now.getTime(), limit],
      );
    return rows.map((r) => ({ id: r.id, title: r.title, projectId: r.project_id }));
  }

  /** The plan subtask that runs after `taskId` in the same chain, if any. */
  async nextInChain(taskId: string, parentTaskId: string): Promise<string | null> {
    const rows = await this.em()
      .getConnection()
      .execute<Array<{ id: string }>>(
        'select t.id from task_dependencies d join tasks t on t.id = d.task_id where d.depends_on_id = ? and t.parent_task_id = ? and t.is_plan_subtask = true limit 1',
        [taskId, parentTaskId],
      );
    return rows[0]?.id ?? null;
  }

  /** Consecutive rate-limit pauses of a task's latest results (for the backoff). */
  async recentRateLimitPauses(taskId: string, window = 8): Promise<number> {
    const rows = await this.em()
      .getConnection()
      .execute<Array<{ result: string }>>('select result from task_results where task_id = ? order by id desc limit ?', [taskId, window]);
    let n = 0;
    for (const r of rows) {
      if (r.result !== 'PAUSED_RATE_LIMIT') break;
      n++;
    }
    return n;
  }
}
