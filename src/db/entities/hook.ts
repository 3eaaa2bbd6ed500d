import { DateTimeType, Entity, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Project } from './project';

/** When a hook runs, as create_hook and edit_hook check it; `skip_llm` runs its context steps only. */
export type HookTrigger = ({ type: 'periodic'; interval_seconds: number } | { type: 'event'; event_type: string }) & {
  skip_llm?: boolean;
};
export type HookContextStep = Record<string, unknown>;

@Entity({ tableName: 'hooks' })
export class Hook {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade', fieldName: 'project_id' })
  project!: Project;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'boolean', default: true })
  enabled: boolean & Opt = true;

  @Property({ type: 'json' })
  trigger!: HookTrigger;

  @Property({ type: 'json' })
  contextSteps: HookContextStep[] & Opt = [];

  @Property({ type: 'text' })
  promptTemplate!: string;

  @Property({ type: 'integer', default: 3600 })
  cooldownSeconds: number & Opt = 3600;

  @Property({ type: 'json', nullable: true })
  llmConfig?: Record<string, unknown> | null;

  /** When the hook was last launched (cooldown counts from launch). */
  @Property({ type: DateTimeType, nullable: true })
  lastRunAt?: Date | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();

  @Property({ type: DateTimeType, onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
