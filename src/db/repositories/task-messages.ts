import type { EmFactory } from '../database';
import { storedDate } from './column-values';
import { dialectOf } from '../dialect';
import { runSql } from './run-sql';
import { retryingTransaction } from '../retrying-transaction';

export type TaskMessageKind = 'live' | 'follow_up';

export interface TaskMessageRecord {
  id: number;
  taskId: string;
  kind: TaskMessageKind;
  text: string;
  author: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

interface Row {
  id: number;
  task_id: string;
  kind: TaskMessageKind;
  text: string;
  author: string | null;
  created_at: number;
  delivered_at: number | null;
}

const toRecord = (r: Row): TaskMessageRecord => ({
  id: Number(r.id),
  taskId: r.task_id,
  kind: r.kind,
  text: r.text,
  author: r.author ?? null,
  createdAt: new Date(Number(r.created_at)),
  deliveredAt: storedDate(r.delivered_at),
});

/**
 * Messages to a task's agent (migration …_task_messages). Any process stores them; the daemon
 * running the task takes the pending ones, and marking one delivered is compare-and-set so a
 * message reaches the agent once.
 */
export class TaskMessageRepository {
  constructor(private readonly em: EmFactory) {}

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em().execute(sql, params) as Promise<T[]>;
  }

  private run(sql: string, params: unknown[]): Promise<{ changes: number; id: number }> {
    return runSql(this.em(), sql, params);
  }

  async add(
    m: { taskId: string; kind: TaskMessageKind; text: string; author?: string | null },
    now = new Date(),
  ): Promise<TaskMessageRecord> {
    const returning = dialectOf(this.em()).returningId;
    const { id } = await this.run(
      `insert into task_messages (task_id, kind, text, author, created_at) values (?, ?, ?, ?, ?)${returning}`,
      [m.taskId, m.kind, m.text, m.author ?? null, now.getTime()],
    );
    return { id, taskId: m.taskId, kind: m.kind, text: m.text, author: m.author ?? null, createdAt: now, deliveredAt: null };
  }

  /** Undelivered messages of a task, oldest first (of one kind, or of both). */
  async pending(taskId: string, kind?: TaskMessageKind): Promise<TaskMessageRecord[]> {
    const rows = await this.query<Row>(
      `select * from task_messages where task_id = ? and delivered_at is null${kind ? ' and kind = ?' : ''} order by id`,
      kind ? [taskId, kind] : [taskId],
    );
    return rows.map(toRecord);
  }

  /** True when this call marked it (nobody delivered it before). */
  async markDelivered(id: number, now = new Date()): Promise<boolean> {
    return (
      (await this.run('update task_messages set delivered_at = ? where id = ? and delivered_at is null', [now.getTime(), id])).changes > 0
    );
  }

  /** Live messages a run ended without taking become the instruction of a follow-up run. */
  async toFollowUp(taskId: string): Promise<number> {
    return (
      await this.run("update task_messages set kind = 'follow_up' where task_id = ? and kind = 'live' and delivered_at is null", [taskId])
    ).changes;
  }

  async list(taskId: string): Promise<TaskMessageRecord[]> {
    return (await this.query<Row>('select * from task_messages where task_id = ? order by id', [taskId])).map(toRecord);
  }

  /**
   * READY follow-ups still held for their own workspace, which another task holds, since before
   * `before` (their oldest waiting message): the ones that should stop waiting and move.
   */
  async followUpsPinnedSince(before: Date): Promise<Array<{ taskId: string; projectId: string; workspaceId: string }>> {
    const rows = await this.query<{ id: string; project_id: string; preferred_workspace_id: string }>(
      `select t.id, t.project_id, t.preferred_workspace_id
         from tasks t
         join workspaces w on w.id = t.preferred_workspace_id and w.locked_by_task_id is not null and w.locked_by_task_id <> t.id
        where t.status = 'READY'
          and exists (select 1 from task_messages m where m.task_id = t.id and m.kind = 'follow_up' and m.delivered_at is null)
          and (select min(m.created_at) from task_messages m
                where m.task_id = t.id and m.kind = 'follow_up' and m.delivered_at is null) <= ?`,
      [before.getTime()],
    );
    return rows.map((r) => ({ taskId: r.id, projectId: r.project_id, workspaceId: r.preferred_workspace_id }));
  }
}

/** Who may steer a project's agents besides the admins (migration …_project_steerers). */
export class ProjectSteererRepository {
  constructor(private readonly em: EmFactory) {}

  async list(projectId: string): Promise<string[]> {
    const rows = (await this.em().execute('select user_id from project_steerers where project_id = ? order by user_id', [
      projectId,
    ])) as Array<{ user_id: string }>;
    return rows.map((r) => r.user_id);
  }

  /** Replaces the project's list; an empty list leaves steering to the admin rule. */
  async set(projectId: string, userIds: string[]): Promise<void> {
    await retryingTransaction(this.em, async (em) => {
      await em.execute('delete from project_steerers where project_id = ?', [projectId], 'run');
      for (const id of new Set(userIds))
        await em.execute('insert into project_steerers (project_id, user_id) values (?, ?)', [projectId, id], 'run');
    });
  }
}
