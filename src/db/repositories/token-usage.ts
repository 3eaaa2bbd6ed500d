import type { TokenSource } from '../value-sets';
import type { EmFactory } from '../database';
import { settleAll } from '../../util/settle-all';
import { pageSlice, runSql } from './run-sql';

export interface TokenUsageEntry {
  projectId?: string | null;
  taskId?: string | null;
  agentId?: string | null;
  source: TokenSource;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  costUsd?: number;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface TaskBreakdown {
  rows: Array<{ agent_id: string | null; tokens: number; entries: number }>;
  /** How many agents used tokens on the task in all. */
  rowCount: number;
  tokens: number;
}

export interface ProjectBreakdown {
  rows: Array<{ task_id: string | null; agent_id: string | null; tokens: number }>;
  /** How many (task, agent) rows the project has in all. */
  rowCount: number;
  tokens: number;
}

export interface OverallBreakdown {
  rows: Array<{ project_id: string | null; tokens: number }>;
  /** How many projects (and the no-project row) have usage. */
  rowCount: number;
  tokens: number;
}

/** The totals tables store a missing project, task or agent as '' (see the migration). */
const orNull = (value: string): string | null => (value === '' ? null : value);

/**
 * Token accounting: one row per model run. Reads come from totals that triggers keep exact
 * (migration …_token_usage_totals), so their cost does not grow with history.
 */
export class TokenUsageRepository {
  constructor(private readonly em: EmFactory) {}

  /**
   * One insert statement: every model run records one, and through the ORM's unit of work (its
   * changeset, a transaction of its own) each cost several times the statement.
   */
  async record(entry: TokenUsageEntry): Promise<void> {
    const cacheRead = entry.cacheReadTokens ?? 0;
    const cacheCreation = entry.cacheCreationTokens ?? 0;
    await runSql(
      this.em(),
      `insert into token_usage (project_id, task_id, agent_id, source, input_tokens, output_tokens, cache_read_tokens,
        cache_creation_tokens, tokens, cost_usd, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        entry.projectId ?? null,
        entry.taskId ?? null,
        entry.agentId ?? null,
        entry.source,
        entry.inputTokens,
        entry.outputTokens,
        cacheRead,
        cacheCreation,
        entry.inputTokens + entry.outputTokens + cacheRead + cacheCreation,
        entry.costUsd ?? 0,
        Date.now(),
      ],
    );
  }

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em().execute(sql, params) as Promise<T[]>;
  }

  /** For one task: one page of tokens per agent, largest first, with the task's totals. */
  async byAgentForTask(taskId: string, page: Page): Promise<TaskBreakdown> {
    // A task's rows are few (one per agent that worked it), so summing them here stays cheap.
    const [rows, totals] = await settleAll([
      this.query<{ agent_id: string; tokens: number; entries: number }>(
        `select agent_id, sum(tokens) as tokens, sum(entries) as entries from token_usage_totals where task_id = ? group by agent_id order by tokens desc, agent_id${pageSlice(page)}`,
        [taskId],
      ),
      this.query<{ tokens: number | null; n: number }>(
        'select sum(tokens) as tokens, count(distinct agent_id) as n from token_usage_totals where task_id = ?',
        [taskId],
      ),
    ]);
    return {
      rows: rows.map((r) => ({ agent_id: orNull(r.agent_id), tokens: Number(r.tokens), entries: Number(r.entries) })),
      rowCount: Number(totals[0]?.n ?? 0),
      tokens: Number(totals[0]?.tokens ?? 0),
    };
  }

  /** For one project: one page of tokens per task and agent, largest first, with the project's totals. */
  async byTaskForProject(projectId: string, page: Page): Promise<ProjectBreakdown> {
    const [rows, totals] = await settleAll([
      this.query<{ task_id: string; agent_id: string; tokens: number }>(
        `select task_id, agent_id, tokens from token_usage_totals where project_id = ? order by tokens desc, task_id, agent_id${pageSlice(page)}`,
        [projectId],
      ),
      this.query<{ tokens: number; task_agent_rows: number }>(
        'select tokens, task_agent_rows from token_usage_project_totals where project_id = ?',
        [projectId],
      ),
    ]);
    return {
      rows: rows.map((r) => ({ task_id: orNull(r.task_id), agent_id: orNull(r.agent_id), tokens: Number(r.tokens) })),
      rowCount: Number(totals[0]?.task_agent_rows ?? 0),
      tokens: Number(totals[0]?.tokens ?? 0),
    };
  }

  /** Everything: one page of tokens per project (null: chat and hooks outside a project), largest first. */
  async byProject(page: Page): Promise<OverallBreakdown> {
    const [rows, totals] = await settleAll([
      this.query<{ project_id: string; tokens: number }>(
        `select project_id, tokens from token_usage_project_totals order by tokens desc, project_id${pageSlice(page)}`,
        [],
      ),
      this.query<{ tokens: number | null; n: number }>('select sum(tokens) as tokens, count(*) as n from token_usage_project_totals'),
    ]);
    return {
      rows: rows.map((r) => ({ project_id: orNull(r.project_id), tokens: Number(r.tokens) })),
      rowCount: Number(totals[0]?.n ?? 0),
      tokens: Number(totals[0]?.tokens ?? 0),
    };
  }

  /** A task's tokens and cost over all its runs (its few rows, through the task index). */
  async forTask(taskId: string): Promise<{ tokens: number; costUsd: number }> {
    const rows = await this.query<{ tokens: number | null; cost: number | null }>(
      'select sum(tokens) as tokens, sum(cost_usd) as cost from token_usage where task_id = ?',
      [taskId],
    );
    return { tokens: Number(rows[0]?.tokens ?? 0), costUsd: Math.round(Number(rows[0]?.cost ?? 0) * 1e6) / 1e6 };
  }
}
