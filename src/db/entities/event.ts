import { DateTimeType, Entity, Index, Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** The system event log. Rows outlive the tasks they mention on purpose: it is a log. */
@Entity({ tableName: 'events' })
@Index({ name: 'events_project_id', properties: ['projectId', 'id'] })
export class Event {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'string' })
  type!: string;

  @Property({ type: 'string', nullable: true })
  projectId?: string | null;

  @Index()
  @Property({ type: 'string', nullable: true })
  taskId?: string | null;

  @Property({ type: 'string', nullable: true })
  agentId?: string | null;

  @Property({ type: 'json', nullable: true })
  payload?: Record<string, unknown> | null;

  /** Which process wrote the row, so the daemon can fan out events written by `aq`. */
  @Property({ type: 'string', nullable: true })
  origin?: string | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
