import { DateTimeType, Entity, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Task } from './task';

/** What an agent run produced. The newest row per task is "the" result. */
@Entity({ tableName: 'task_results' })
export class TaskResult {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @ManyToOne(() => Task, { deleteRule: 'cascade', fieldName: 'task_id', index: true })
  task!: Task;

  @Property({ type: 'string', nullable: true })
  agentId?: string | null;

  /** COMPLETED, FAILED, PAUSED_TOKENS, PAUSED_RATE_LIMIT, WAITING_INPUT, … */
  @Property({ type: 'string' })
  result!: string;

  @Property({ type: 'text', nullable: true })
  summary?: string | null;

  @Property({ type: 'text', nullable: true })
  errorMessage?: string | null;

  @Property({ type: 'json', nullable: true })
  filesChanged?: string[] | null;

  @Property({ type: 'integer', default: 0 })
  tokensUsed: number & Opt = 0;

  @Property({ type: 'double', default: 0 })
  costUsd: number & Opt = 0;

  /** False when the agent did not report its tokens (tokensUsed is then unknown, not zero). */
  @Property({ type: 'boolean', default: true })
  tokensReported: boolean & Opt = true;

  /** False when the agent did not report a cost in USD. */
  @Property({ type: 'boolean', default: true })
  costReported: boolean & Opt = true;

  @Property({ type: 'string', nullable: true })
  sessionId?: string | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
