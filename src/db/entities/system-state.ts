import { DateTimeType, Entity, Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** Small shared flags (e.g. `orchestrator_paused`) that every process must see. */
@Entity({ tableName: 'system_state' })
export class SystemState {
  @PrimaryKey({ type: 'string' })
  key!: string;

  @Property({ type: 'json', nullable: true })
  value?: unknown;

  @Property({ type: DateTimeType, onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
