import { DateTimeType, Entity, Index, Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** How a task branch is brought up to date with the base before it lands. */
export const LANDING_MODES = ['rebase', 'merge'] as const;
export type LandingMode = (typeof LANDING_MODES)[number];

export const PROJECT_STATUSES = ['ACTIVE', 'PAUSED'] as const;

/** What an overlap between two live tasks does: `warn` in their threads, or also `serialize` new starts. */
export const OVERLAP_POLICIES = ['warn', 'serialize'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const TASK_ROOMS_SETTINGS = ['all', 'approval', 'off'] as const;
export type TaskRoomsSetting = (typeof TASK_ROOMS_SETTINGS)[number];

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

  /** Which of the project's tasks get a Slack room (code channel): all, those needing approval, none. */
  @Property({ type: 'string', default: 'approval' })
  taskRooms: TaskRoomsSetting & Opt = 'approval';
  /** serialize: a READY task whose predicted files a running task touched waits for it (the conflict radar). */
  @Property({ type: 'string', default: 'warn' })
  overlapPolicy: OverlapPolicy & Opt = 'warn';
  /** Run in the task's workspace before it lands; empty: no check. */
  @Property({ type: 'text', default: '' })
  checkCommand: string & Opt = '';

  @Property({ type: 'integer', default: 600 })
  checkTimeoutSeconds: number & Opt = 600;

  @Property({ type: 'string', default: 'rebase' })
  landing: LandingMode & Opt = 'rebase';

  /** Landings a task may be sent back from before it is BLOCKED. */
  @Property({ type: 'integer', default: 3 })
  landingTries: number & Opt = 3;
  /** Backends its tasks may run on, in order of preference (`claude-code`, `acp`, `acp:<profile>`); null: any. */
  @Property({ type: 'json', nullable: true })
  backends?: string[] | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();

  @Property({ type: DateTimeType, onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
