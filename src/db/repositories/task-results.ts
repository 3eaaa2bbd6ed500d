import type { EmFactory } from '../database';
import { storableJson, storedFlag } from './column-values';
import { runSql } from './run-sql';

export interface TaskResultRecord {
  id: number;
  taskId: string;
  agentId: string | null;
  result: string;
  summary: string | null;
  errorMessage: string | null;
  filesChanged: string[] | null;
  /** Null when the agent did not report them: unknown, not zero. */
  tokensUsed: number | null;
  costUsd: number | null;
  sessionId: string | null;
  createdAt: Date;
}

export type NewTaskResult = Omit<TaskResultRecord, 'id' | 'createdAt'>;

interface ResultRow {
  id: number;
  agent_id: string | null;
  result: string;
  summary: string | null;
  error_message: string | null;
  /** Text on SQLite, parsed on PostgreSQL (a json column). */
  files_changed: string[] | string | null;
  tokens_used: number;
  tokens_reported: boolean | number;
  cost_usd: number;
  cost_reported: boolean | number;
  session_id: string | null;
  created_at: number;
}

/**
 * Reads and writes are plain statements: a run's end stores a result and several readers (the
 * agent's next turn, the landing, the task's card) read the newest, and through the ORM each
 * built its query, hydrated an entity and, for a write, ran a unit of work of its own.
 */
export class TaskResultRepository {
  constructor(private readonly em: EmFactory) {}

  /** The newest result of a task, or null when none was recorded. */
  async latest(taskId: string): Promise<TaskResultRecord | null> {
    const [r] = await this.em().execute<ResultRow[]>(
      `select id, agent_id, result, summary, error_message, files_changed, tokens_used, tokens_reported, cost_usd, cost_reported,
        session_id, created_at from task_results where task_id = ? order by id desc limit 1`,
      [taskId],
    );
    if (!r) return null;
    return {
      id: Number(r.id),
      taskId,
      agentId: r.agent_id,
      result: r.result,
      summary: r.summary,
      errorMessage: r.error_message,
      filesChanged: typeof r.files_changed === 'string' ? (JSON.parse(r.files_changed) as string[] | null) : r.files_changed,
      tokensUsed: storedFlag(r.tokens_reported) ? Number(r.tokens_used) : null,
      costUsd: storedFlag(r.cost_reported) ? Number(r.cost_usd) : null,
      sessionId: r.session_id,
      createdAt: new Date(Number(r.created_at)),
    };
  }

  /** The agent session of the task's newest result that had one (a follow-up resumes it). */
  async lastSessionId(taskId: string): Promise<string | null> {
    const rows = await this.em().execute<Array<{ session_id: string }>>(
      'select session_id from task_results where task_id = ? and session_id is not null order by id desc limit 1',
      [taskId],
    );
    return rows[0]?.session_id ?? null;
  }

  async add(data: NewTaskResult): Promise<void> {
    await runSql(
      this.em(),
      `insert into task_results (task_id, agent_id, result, summary, error_message, files_changed, tokens_used, tokens_reported,
        cost_usd, cost_reported, session_id, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        data.taskId,
        data.agentId,
        data.result,
        data.summary,
        data.errorMessage,
        storableJson(data.filesChanged),
        data.tokensUsed ?? 0,
        data.tokensUsed !== null,
        data.costUsd ?? 0,
        data.costUsd !== null,
        data.sessionId,
        Date.now(),
      ],
    );
  }
}
