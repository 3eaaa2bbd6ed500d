import type { EmFactory } from '../database';
import { storedDate } from './column-values';
import { dialectOf } from '../dialect';
import { pageSlice, runSql } from './run-sql';

export type AgentRequestKind = 'question' | 'permission';
export type AgentRequestStatus = 'pending' | 'answered' | 'timed_out' | 'cancelled';

export interface AgentRequestRecord {
  id: number;
  taskId: string;
  projectId: string;
  kind: AgentRequestKind;
  payload: Record<string, unknown>;
  status: AgentRequestStatus;
  /** For a pending question: the answers given so far (one question of several answered). */
  answer: Record<string, unknown> | null;
  answeredBy: string | null;
  createdAt: Date;
  answeredAt: Date | null;
  expiresAt: Date | null;
}

interface Row {
  id: number;
  task_id: string;
  project_id: string;
  kind: AgentRequestKind;
  payload: string;
  status: AgentRequestStatus;
  answer: string | null;
  answered_by: string | null;
  created_at: number;
  answered_at: number | null;
  expires_at: number | null;
}

function parsed(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const toRecord = (r: Row): AgentRequestRecord => ({
  id: Number(r.id),
  taskId: r.task_id,
  projectId: r.project_id,
  kind: r.kind,
  payload: parsed(r.payload) ?? {},
  status: r.status,
  answer: parsed(r.answer),
  answeredBy: r.answered_by ?? null,
  createdAt: new Date(Number(r.created_at)),
  answeredAt: storedDate(r.answered_at),
  expiresAt: storedDate(r.expires_at),
});

/**
 * Questions and permission requests of running agents (migration …_agent_requests). The run
 * that asked waits on its row; every change of status is compare-and-set on 'pending', so an
 * answer, a timeout and a stop can race and exactly one wins.
 */
export class AgentRequestRepository {
  constructor(private readonly em: EmFactory) {}

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em().execute(sql, params) as Promise<T[]>;
  }

  private run(sql: string, params: unknown[]): Promise<{ changes: number; id: number }> {
    return runSql(this.em(), sql, params);
  }

  async add(
    r: { taskId: string; projectId: string; kind: AgentRequestKind; payload: Record<string, unknown>; expiresAt: Date | null },
    now = new Date(),
  ): Promise<AgentRequestRecord> {
    const { id } = await this.run(
      `insert into agent_requests (task_id, project_id, kind, payload, created_at, expires_at) values (?, ?, ?, ?, ?, ?)${dialectOf(this.em()).returningId}`,
      [r.taskId, r.projectId, r.kind, JSON.stringify(r.payload), now.getTime(), r.expiresAt?.getTime() ?? null],
    );
    return {
      id,
      taskId: r.taskId,
      projectId: r.projectId,
      kind: r.kind,
      payload: r.payload,
      status: 'pending',
      answer: null,
      answeredBy: null,
      createdAt: now,
      answeredAt: null,
      expiresAt: r.expiresAt,
    };
  }

  async get(id: number): Promise<AgentRequestRecord | null> {
    const rows = await this.query<Row>('select * from agent_requests where id = ?', [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Requests, newest first: of a task or a project, in a status (all when omitted). */
  async list(
    filter: { taskId?: string; projectId?: string; status?: AgentRequestStatus },
    limit = 50,
    offset = 0,
  ): Promise<AgentRequestRecord[]> {
    const { where, params } = this.filter(filter);
    const sql = `select * from agent_requests${where} order by id desc${pageSlice({ limit, offset })}`;
    return (await this.query<Row>(sql, params)).map(toRecord);
  }

  async count(filter: { taskId?: string; projectId?: string; status?: AgentRequestStatus }): Promise<number> {
    const { where, params } = this.filter(filter);
    const rows = await this.query<{ n: number }>(`select count(*) as n from agent_requests${where}`, params);
    return Number(rows[0]?.n ?? 0);
  }

  private filter(filter: { taskId?: string; projectId?: string; status?: AgentRequestStatus }): { where: string; params: unknown[] } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.taskId) {
      where.push('task_id = ?');
      params.push(filter.taskId);
    }
    if (filter.projectId) {
      where.push('project_id = ?');
      params.push(filter.projectId);
    }
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    return { where: where.length ? ` where ${where.join(' and ')}` : '', params };
  }

  async countPending(taskId: string): Promise<number> {
    const rows = await this.query<{ n: number }>("select count(*) as n from agent_requests where task_id = ? and status = 'pending'", [
      taskId,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  /** Answers a pending request; false when it was no longer pending. */
  async answer(id: number, answer: Record<string, unknown>, by: string | null, now = new Date()): Promise<boolean> {
    const { changes } = await this.run(
      "update agent_requests set status = 'answered', answer = ?, answered_by = ?, answered_at = ? where id = ? and status = 'pending'",
      [JSON.stringify(answer), by, now.getTime(), id],
    );
    return changes > 0;
  }

  /** Keeps part of a question's answers while others are still open; false when no longer pending. */
  async keepPartial(id: number, answer: Record<string, unknown>): Promise<boolean> {
    const { changes } = await this.run("update agent_requests set answer = ? where id = ? and status = 'pending'", [
      JSON.stringify(answer),
      id,
    ]);
    return changes > 0;
  }

  /** Closes a pending request without an answer; false when something else closed it first. */
  async close(id: number, status: 'timed_out' | 'cancelled', now = new Date()): Promise<boolean> {
    const { changes } = await this.run("update agent_requests set status = ?, answered_at = ? where id = ? and status = 'pending'", [
      status,
      now.getTime(),
      id,
    ]);
    return changes > 0;
  }

  /** Cancels every pending request of a task (its run is gone). */
  async cancelForTask(taskId: string, now = new Date()): Promise<number> {
    return (
      await this.run("update agent_requests set status = 'cancelled', answered_at = ? where task_id = ? and status = 'pending'", [
        now.getTime(),
        taskId,
      ])
    ).changes;
  }
}

/** A project's tool policy: Claude Code allow rules (migration …_agent_requests). */
export class ToolPolicyRepository {
  constructor(private readonly em: EmFactory) {}

  /** The stored rules, or null when the project never set its own (the default applies). */
  async get(projectId: string): Promise<string[] | null> {
    const rows = (await this.em().execute('select rules from project_tool_policies where project_id = ?', [projectId])) as Array<{
      rules: string;
    }>;
    if (!rows[0]) return null;
    let value: unknown = [];
    try {
      value = JSON.parse(rows[0].rules);
    } catch {
      // A damaged row reads as an empty policy: everything is asked, nothing is allowed silently.
    }
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }

  async set(projectId: string, rules: string[], by: string | null, now = new Date()): Promise<void> {
    await this.em().execute(
      `insert into project_tool_policies (project_id, rules, updated_at, updated_by) values (?, ?, ?, ?)
       on conflict (project_id) do update set rules = excluded.rules, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [projectId, JSON.stringify(rules), now.getTime(), by],
      'run',
    );
  }

  async clear(projectId: string): Promise<void> {
    await this.em().execute('delete from project_tool_policies where project_id = ?', [projectId], 'run');
  }
}
