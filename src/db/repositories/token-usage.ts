import { TokenUsage, type TokenSource } from '../entities';
import type { EmFactory } from '../database';

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

/** Token accounting: one row per model run, summed in SQL. */
export class TokenUsageRepository {
  constructor(private readonly em: EmFactory) {}

  async record(entry: TokenUsageEntry): Promise<void> {
    const em = this.em();
    const cacheRead = entry.cacheReadTokens ?? 0;
    const cacheCreation = entry.cacheCreationTokens ?? 0;
    em.create(TokenUsage, {
      projectId: entry.projectId ?? null,
      taskId: entry.taskId ?? null,
      agentId: entry.agentId ?? null,
      source: entry.source,
      inputTokens: entry.inputTokens,
      outputTokens: entry.outputTokens,
      cacheReadTokens: cacheRead,
      cacheCreationTokens: cacheCreation,
      tokens: entry.inputTokens + entry.outputTokens + cacheRead + cacheCreation,
      costUsd: entry.costUsd ?? 0,
      createdAt: new Date(),
    });
    await em.flush();
  }

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em().getConnection().execute(sql, params) as Promise<T[]>;
  }

  /** For one task: tokens per agent. */
  byAgentForTask(taskId: string) {
    return this.query<{ agent_id: string | null; tokens: number; entries: number }>(
      'select agent_id, sum(tokens) as tokens, count(*) as entries from token_usage where task_id = ? group by agent_id order by tokens desc',
      [taskId],
    );
  }

  /** For one project: tokens per task and agent. */
  byTaskForProject(projectId: string) {
    return this.query<{ task_id: string | null; agent_id: string | null; tokens: number }>(
      'select task_id, agent_id, sum(tokens) as tokens from token_usage where project_id = ? group by task_id, agent_id order by tokens desc',
      [projectId],
    );
  }

  /** Everything: tokens per project. */
  byProject() {
    return this.query<{ project_id: string | null; tokens: number }>(
      'select project_id, sum(tokens) as tokens from token_usage group by project_id order by tokens desc',
    );
  }

  /** Tokens per project since `since` (the scheduler's rolling window). */
  async perProjectSince(since: Date): Promise<Map<string, number>> {
    const rows = await this.query<{ project_id: string; tokens: number }>(
      'select project_id, sum(tokens) as tokens from token_usage where project_id is not null and created_at >= ? group by project_id',
      [since],
    );
    return new Map(rows.map((r) => [r.project_id, Number(r.tokens)]));
  }
}
