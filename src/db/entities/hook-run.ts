import { DateTimeType, Entity, Index, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Hook } from './hook';

export const HOOK_RUN_STATUSES = ['running', 'completed', 'failed', 'skipped'] as const;
export type HookRunStatus = (typeof HOOK_RUN_STATUSES)[number];

@Entity({ tableName: 'hook_runs' })
@Index({ name: 'hook_runs_hook_started_id', properties: ['hook', 'startedAt', 'id'] })
export class HookRun {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @ManyToOne(() => Hook, { deleteRule: 'cascade', fieldName: 'hook_id' })
  hook!: Hook;

  @Property({ type: 'string' })
  projectId!: string;

  @Property({ type: 'string' })
  triggerReason!: string;

  @Property({ type: 'string', default: 'running' })
  status: HookRunStatus & Opt = 'running';

  @Property({ type: 'json', nullable: true })
  eventData?: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  contextResults?: unknown[] | null;

  @Property({ type: 'text', nullable: true })
  promptSent?: string | null;

  @Property({ type: 'text', nullable: true })
  llmResponse?: string | null;

  @Property({ type: 'string', nullable: true })
  skippedReason?: string | null;

  @Property({ type: 'integer', default: 0 })
  tokensUsed: number & Opt = 0;

  @Property({ type: DateTimeType })
  startedAt: Date & Opt = new Date();

  @Property({ type: DateTimeType, nullable: true })
  completedAt?: Date | null;
}
