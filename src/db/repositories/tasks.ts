import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { TaskStatus } from '../value-sets';
import type { EmFactory } from '../database';
import { generateTaskId } from '../ids';
import { insertEvent, type EventRecord, type NewEvent } from './events';
import {
  blockedHoldingUp,
  everyStuckDownstream,
  projectStuckChains,
  stuckDownstreamPages,
  type ProjectStuckChains,
  type StuckPage,
} from './stuck-chains';
import {
  newTaskRecord,
  TASK_COLUMNS,
  taskAssignments,
  taskFromRow,
  taskInsert,
  type NewTask,
  type TaskRecord,
  type TaskRow,
  type TaskUpdate,
} from './task-record';
import {
  firstTasksInStatuses,
  taskPage,
  type TaskListFilter,
  type TaskPage,
  type TaskPageOptions,
  type TaskSummaryRow,
} from './task-pages';
import { retryingTransaction } from '../retrying-transaction';
import { changes as changedRows, pageSlice, placeholders, readInBatches, writeReturning } from './run-sql';
import { isPostgres } from '../dialect';
import { CLOSE_RUN_RECORD, endRunOn } from './run-end';

export type { NewTask, TaskRecord, TaskUpdate } from './task-record';
export type { TaskListFilter, TaskPage, TaskPageOptions, TaskPlace, TaskSummaryRow } from './task-pages';

/** A move made by one run: it lands only while the task is that run's. */
export interface TaskFence {
  runId: string;
  /**
   * The move ends the run (it takes the task out of the running statuses): with it, the run's
   * record is closed with this outcome and the task's claim let go (run-end.ts).
   */
  endsRunAs?: string;
}

export class TaskRepository {
  constructor(private readonly em: EmFactory) {}

  /**
   * A plain statement (read by every command about a task and every move of a run; the ORM's
   * findOne cost about 1 ms more), through the EntityManager so that a repository bound to a
   * transaction (`TaskStateMachine.within`) reads inside it: the connection's own execute would
   * wait for a connection the transaction holds (SQLite has one) or read outside it.
   */
  async get(id: string): Promise<TaskRecord | null> {
    const [row] = await this.em().execute<TaskRow[]>(`select ${TASK_COLUMNS} from tasks where id = ?`, [id]);
    return row ? taskFromRow(row) : null;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.em().execute('select 1 as found from tasks where id = ?', [id])).length > 0;
  }

  /**
   * Creates the task with a fresh human-readable id and, optionally, its upstream dependencies:
   * plain inserts in one transaction (through the ORM's unit of work, building and flushing the
   * entities cost more than the statements).
   */
  async create(data: NewTask, dependsOn: string[] = []): Promise<TaskRecord> {
    return (await this.store(data, dependsOn, null)).task;
  }

  /**
   * Stores a new task with the event that reports it, in one transaction: the task is never
   * stored without its event, and on PostgreSQL one commit waits for the log instead of two.
   */
  async createReported(
    data: NewTask,
    dependsOn: string[],
    eventOf: (task: TaskRecord) => NewEvent,
  ): Promise<{ task: TaskRecord; event: EventRecord }> {
    const { task, event } = await this.store(data, dependsOn, eventOf);
    return { task, event: event as EventRecord };
  }

  private async store(
    data: NewTask,
    dependsOn: string[],
    eventOf: ((task: TaskRecord) => NewEvent) | null,
  ): Promise<{ task: TaskRecord; event: EventRecord | null }> {
    const id = await generateTaskId((candidate) => this.exists(candidate));
    const task = newTaskRecord(id, data, new Date());
    const event = await retryingTransaction(this.em, async (em) => {
      const insert = taskInsert(task);
      await changedRows(em, insert.sql, insert.params);
      for (const upstream of dependsOn) {
        await changedRows(em, 'insert into task_dependencies (task_id, depends_on_id) values (?, ?)', [id, upstream]);
      }
      return eventOf ? insertEvent(em, eventOf(task)) : null;
    });
    return { task, event };
  }

  /**
   * Applies the update; returns the task as it was before and after, or null when it does not
   * exist. Plain statements: a run's start writes its branch and backend through here.
   */
  async update(id: string, changes: TaskUpdate): Promise<{ before: TaskRecord; after: TaskRecord } | null> {
    const set = taskAssignments(changes);
    return retryingTransaction(this.em, async (em) => {
      const [row] = await em.execute<TaskRow[]>(`select ${TASK_COLUMNS} from tasks where id = ?`, [id]);
      if (!row) return null;
      const before = taskFromRow(row);
      const updatedAt = new Date();
      await changedRows(em, `update tasks set ${[...set.columns, 'updated_at = ?'].join(', ')} where id = ?`, [
        ...set.params,
        updatedAt.getTime(),
        id,
      ]);
      const after = { ...before, updatedAt };
      for (const key of Object.keys(changes) as Array<keyof TaskUpdate>) Object.assign(after, { [key]: changes[key] ?? null });
      return { before, after };
    });
  }

  /**
   * Moves a task to `to` only if it is currently in one of `from` (compare-and-set), so two
   * processes cannot both make the same move, and answers the task as it was just before the
   * move, or null when nothing moved. Only the state machine (src/orchestrator/state-machine.ts)
   * calls this; everything else goes through it.
   *
   * On PostgreSQL the read and the move are one statement: the row is read and locked in a
   * `with` (a concurrent change is waited for, and the status checked again on what it left),
   * then updated from it, its values before the move returned. The read before each move was
   * one round trip more for every move a run makes (three in a claim with its run). SQLite has
   * no way to return a row's old values from an update, and its statements cost no round trip:
   * there it reads, then moves.
   */
  async transition(
    id: string,
    from: TaskStatus[],
    to: TaskStatus,
    changes: TaskUpdate = {},
    fence?: TaskFence,
  ): Promise<TaskRecord | null> {
    if (from.length === 0) return null; // no status to move from: nothing can match
    const em = this.em();
    // A fenced move lands only while the task is still held by that run (run-records.ts).
    const where = `id = ? and status in (${placeholders(from)})${fence ? ' and current_run_id = ?' : ''}`;
    const whereParams = [id, ...from, ...(fence ? [fence.runId] : [])];
    const set = taskAssignments(changes);
    const changed = set.columns.map((column) => `${column}, `).join('');
    const now = Date.now();
    const setParams = [...set.params, to, now];
    const endsRunAs = fence?.endsRunAs;
    if (isPostgres(em)) {
      // A run's last move also closes its record and lets go of its claim in the same statement (as
      // endRunOn does in two more): one round trip where begin, three statements and commit were five.
      const releaseClaim = endsRunAs ? ', claimed_by = null, lease_expires_at = null' : '';
      const endRun = endsRunAs ? `, ended as (${CLOSE_RUN_RECORD} and exists (select 1 from moved))` : '';
      const [before] = await writeReturning<TaskRow>(
        em,
        `with before as (select ${TASK_COLUMNS} from tasks where ${where} for no key update),
          moved as (update tasks set ${changed}status = ?, updated_at = ?${releaseClaim} from before where tasks.id = before.id returning before.*)${endRun}
          select * from moved`,
        [...whereParams, ...setParams, ...(endsRunAs && fence ? [now, endsRunAs, fence.runId] : [])],
      );
      return before ? taskFromRow(before) : null;
    }
    if (endsRunAs && fence) {
      return retryingTransaction(this.em, async (tx) => {
        const moved = await new TaskRepository(() => tx).transition(id, from, to, changes, { runId: fence.runId });
        if (moved) await endRunOn(tx, fence.runId, endsRunAs, now);
        return moved;
      });
    }
    const before = await new TaskRepository(() => em).get(id);
    if (!before || !from.includes(before.status)) return null;
    const sql = `update tasks set ${changed}status = ?, updated_at = ? where ${where}`;
    return (await changedRows(em, sql, [...setParams, ...whereParams])) > 0 ? before : null;
  }

  async delete(id: string): Promise<boolean> {
    return (await changedRows(this.em(), 'delete from tasks where id = ?', [id])) > 0;
  }

  /** One page of tasks in queue order, its total and more (task-pages.ts taskPage). */
  async list(filter: TaskListFilter, limit: number, options: TaskPageOptions = {}): Promise<TaskPage> {
    return taskPage(this.em(), filter, limit, options);
  }

  /** The first `limits[status]` tasks of each status in queue order (task-pages.ts). */
  async firstInStatuses(limits: Partial<Record<TaskStatus, number>>): Promise<Partial<Record<TaskStatus, TaskSummaryRow[]>>> {
    return firstTasksInStatuses(this.em(), limits);
  }

  /** Task counts per status, from the trigger-maintained task_status_counts table. */
  async countByStatus(projectId?: string): Promise<Record<string, number>> {
    const em = this.em();
    const rows: Array<{ status: string; n: number }> = projectId
      ? await em.execute('select status, sum(n) as n from task_status_counts where project_id = ? group by status having sum(n) > 0', [
          projectId,
        ])
      : await em.execute('select status, sum(n) as n from task_status_counts group by status having sum(n) > 0');
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** How many tasks are in `status` (of a project), from the trigger-kept task_status_counts. */
  async countInStatus(status: TaskStatus, projectId?: string): Promise<number> {
    const rows = await this.em().execute<Array<{ n: number | string }>>(
      `select coalesce(sum(n), 0) as n from task_status_counts where status = ?${projectId ? ' and project_id = ?' : ''}`,
      projectId ? [status, projectId] : [status],
    );
    return Number(rows[0]?.n ?? 0);
  }

  // --- dependencies -------------------------------------------------------------------------

  /** Tasks that `taskId` waits on, with their status; with `page`, only that slice (see `dependencyCounts`). */
  async upstream(
    taskId: string,
    page?: { limit: number; offset: number },
  ): Promise<Array<{ id: string; title: string; status: TaskStatus }>> {
    return this.em().execute(
      `select t.id, t.title, t.status from task_dependencies d join tasks t on t.id = d.depends_on_id where d.task_id = ? order by t.priority, t.created_at, t.id${pageSlice(page)}`,
      [taskId],
    );
  }

  /** Tasks that wait on `taskId`, with their status; with `page`, only that slice (see `dependencyCounts`). */
  async downstream(
    taskId: string,
    page?: { limit: number; offset: number },
  ): Promise<Array<{ id: string; title: string; status: TaskStatus }>> {
    return this.em().execute(
      `select t.id, t.title, t.status from task_dependencies d join tasks t on t.id = d.task_id where d.depends_on_id = ? order by t.priority, t.created_at, t.id${pageSlice(page)}`,
      [taskId],
    );
  }

  /** How many tasks `taskId` waits on, and how many wait on it (from the edge indexes). */
  async dependencyCounts(taskId: string): Promise<{ upstream: number; downstream: number }> {
    const rows = await this.em().execute<Array<{ up: number; down: number }>>(
      `select (select count(*) from task_dependencies where task_id = ?) as up,
                (select count(*) from task_dependencies where depends_on_id = ?) as down`,
      [taskId, taskId],
    );
    return { upstream: Number(rows[0]?.up ?? 0), downstream: Number(rows[0]?.down ?? 0) };
  }

  async addDependency(taskId: string, dependsOn: string): Promise<void> {
    await changedRows(this.em(), 'insert into task_dependencies (task_id, depends_on_id) values (?, ?)', [taskId, dependsOn]);
  }

  async removeDependency(taskId: string, dependsOn: string): Promise<boolean> {
    return (await changedRows(this.em(), 'delete from task_dependencies where task_id = ? and depends_on_id = ?', [taskId, dependsOn])) > 0;
  }

  async hasDependency(taskId: string, dependsOn: string): Promise<boolean> {
    const rows = await this.em().execute('select 1 as found from task_dependencies where task_id = ? and depends_on_id = ?', [
      taskId,
      dependsOn,
    ]);
    return rows.length > 0;
  }

  /** Whether `upstream` already (transitively) depends on `taskId`, so a new edge would close a cycle. */
  async dependsTransitively(upstream: string, taskId: string): Promise<boolean> {
    const rows = await this.em().execute<Array<{ found: number }>>(
      `with recursive reach(id) as (
           select depends_on_id from task_dependencies where task_id = ?
           union
           select d.depends_on_id from task_dependencies d join reach r on d.task_id = r.id
         ) select count(*) as found from reach where id = ?`,
      [upstream, taskId],
    );
    return Number(rows[0]?.found ?? 0) > 0;
  }

  /** The status of each of the given tasks that exists (one query; missing ids are absent). */
  async statusesOf(ids: string[]): Promise<Map<string, TaskStatus>> {
    const em = this.em();
    const rows = await readInBatches(ids, (batch, marks) =>
      em.execute<Array<{ id: string; status: TaskStatus }>>(`select id, status from tasks where id in (${marks})`, batch),
    );
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /** The title and description of each of the given tasks that exists (one query; missing ids are absent). */
  async textsOf(ids: string[]): Promise<Array<{ id: string; projectId: string; title: string; description: string }>> {
    const em = this.em();
    const rows = await readInBatches(ids, (batch, marks) =>
      em.execute<Array<{ id: string; project_id: string; title: string; description: string }>>(
        `select id, project_id, title, description from tasks where id in (${marks})`,
        batch,
      ),
    );
    return rows.map((r) => ({ id: r.id, projectId: r.project_id, title: r.title, description: r.description }));
  }

  /**
   * Offers each DEFINED task whose upstream tasks are all COMPLETED to `promote`, which makes
   * the move (the state machine, on the same transaction) and says whether it landed, and
   * returns those moved. With a task id, only its direct dependants are considered; with
   * `{ ids }`, only those tasks. A task another process promoted at the same moment is reported
   * by that process only.
   */
  async promoteDefined(
    scope: string | { ids: string[] } | undefined,
    promote: (tx: SqlEntityManager, taskId: string) => Promise<boolean>,
  ): Promise<Array<{ id: string; title: string; projectId: string }>> {
    if (typeof scope === 'object' && scope.ids.length === 0) return [];
    return retryingTransaction(this.em, async (em) => {
      let filter = '';
      let params: string[] = [];
      if (typeof scope === 'string') {
        filter = 'and t.id in (select task_id from task_dependencies where depends_on_id = ?)';
        params = [scope];
      } else if (scope) {
        filter = `and t.id in (${placeholders(scope.ids)})`;
        params = scope.ids;
      }
      const ready = await em.execute<Array<{ id: string; title: string; project_id: string }>>(
        `select t.id, t.title, t.project_id from tasks t
          where t.status = 'DEFINED' ${filter}
            and not exists (select 1 from task_dependencies d join tasks u on u.id = d.depends_on_id
                             where d.task_id = t.id and u.status <> 'COMPLETED')
          order by t.priority, t.created_at`,
        params,
      );
      const promoted: Array<{ id: string; title: string; projectId: string }> = [];
      for (const row of ready) {
        if (await promote(em as SqlEntityManager, row.id)) promoted.push({ id: row.id, title: row.title, projectId: row.project_id });
      }
      return promoted;
    });
  }

  /** Every task downstream of `taskId` (transitively) that is not COMPLETED, nearest first. */
  async stuckDownstream(taskId: string): Promise<Array<{ id: string; title: string; status: TaskStatus }>> {
    return (await this.stuckDownstreamOf([taskId])).get(taskId) ?? [];
  }

  /**
   * `stuckDownstream` for many roots in one recursive query (a breadth-first walk over the
   * dependency edges; see stuck-chains.ts). Every root is in the map, with an empty list when
   * nothing waits on it.
   */
  async stuckDownstreamOf(rootIds: string[]): Promise<Map<string, Array<{ id: string; title: string; status: TaskStatus }>>> {
    return everyStuckDownstream(this.em(), rootIds);
  }

  /** `stuckDownstream` a page at a time per root, with counts (see stuck-chains.ts). */
  async stuckDownstreamPages(rootIds: string[], page: { limit: number; offset: number }): Promise<Map<string, StuckPage>> {
    return stuckDownstreamPages(this.em(), rootIds, page);
  }

  /** A page of a project's BLOCKED tasks that hold something up, and their count (see stuck-chains.ts). */
  async blockedHoldingUp(
    projectId: string,
    page: { limit: number; offset: number },
  ): Promise<{ tasks: Array<{ id: string; title: string }>; total: number }> {
    return blockedHoldingUp(this.em(), projectId, page);
  }

  /** A project's page of chains, each with its `shown` nearest stuck tasks, in one statement (see stuck-chains.ts). */
  async projectStuckChains(projectId: string, page: { limit: number; offset: number }, shown: number): Promise<ProjectStuckChains> {
    return projectStuckChains(this.em(), projectId, page, shown);
  }

  /** The task working on `branch` in a project, if any (newest first). */
  async idForBranch(projectId: string, branch: string): Promise<string | null> {
    const rows = await this.em().execute<Array<{ id: string }>>(
      'select id from tasks where project_id = ? and branch_name = ? order by created_at desc limit 1',
      [projectId, branch],
    );
    return rows[0]?.id ?? null;
  }
}
