import { Entity, Index, Opt, PrimaryKey, Property } from '@mikro-orm/core';

export const PROJECT_STATUSES = ['ACTIVE', 'PAUSED'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

@Entity({ tableName: 'projects' })
export class Project {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', default: 'ACTIVE' })
  status: ProjectStatus & Opt = 'ACTIVE';

  @Property({ type: 'double', default: 1 })
  creditWeight: number & Opt = 1;

  @Property({ type: 'integer', default: 2 })
  maxConcurrentAgents: number & Opt = 2;

  /** Absolute path of the project's workspace directory. */
  @Property({ type: 'string' })
  workspace!: string;

  @Index()
  @Property({ type: 'string', nullable: true })
  chatChannelId?: string | null;

  /** When set, only the task's requester (tasks.requested_by) or an admin may approve its tasks. */
  @Property({ type: 'boolean', default: false })
  approvalsByRequester: boolean & Opt = false;

  /** Optional token budget over the scheduler's rolling window. */
  @Property({ type: 'bigint', nullable: true, columnType: 'integer' })
  budgetLimit?: number | null;

  /** Backends its tasks may run on, in order of preference (`claude-code`, `acp`, `acp:<profile>`); null: any. */
  @Property({ type: 'json', nullable: true })
  backends?: string[] | null;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
