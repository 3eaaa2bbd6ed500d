import { DateTimeType, Entity, Index, Opt, PrimaryKey, Property } from '@mikro-orm/core';

export const TOKEN_SOURCES = ['agent', 'chat', 'hook', 'plan_parser'] as const;
export type TokenSource = (typeof TOKEN_SOURCES)[number];

/** One row per model run (agent task, chat turn, hook run). */
@Entity({ tableName: 'token_usage' })
@Index({ name: 'token_usage_project_time', properties: ['projectId', 'createdAt'] })
@Index({ name: 'token_usage_task', properties: ['taskId'] })
export class TokenUsage {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'string', nullable: true })
  projectId?: string | null;

  @Property({ type: 'string', nullable: true })
  taskId?: string | null;

  @Property({ type: 'string', nullable: true })
  agentId?: string | null;

  @Property({ type: 'string', default: 'agent' })
  source: TokenSource & Opt = 'agent';

  @Property({ type: 'integer', default: 0 })
  inputTokens: number & Opt = 0;

  @Property({ type: 'integer', default: 0 })
  outputTokens: number & Opt = 0;

  @Property({ type: 'integer', default: 0 })
  cacheReadTokens: number & Opt = 0;

  @Property({ type: 'integer', default: 0 })
  cacheCreationTokens: number & Opt = 0;

  /** input + output + cache read + cache creation. */
  @Property({ type: 'integer', default: 0 })
  tokens: number & Opt = 0;

  @Property({ type: 'double', default: 0 })
  costUsd: number & Opt = 0;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
