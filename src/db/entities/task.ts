import { DateTimeType, Entity, Index, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Project } from './project';

/**
 * Every status a task can be in. The spec names READY, IN_PROGRESS, AWAITING_APPROVAL,
 * COMPLETED, BLOCKED and FAILED; scheduling adds DEFINED (waiting on dependencies),
 * ASSIGNED, PAUSED (with resume_after) and WAITING_INPUT.
 */
export const TASK_STATUSES = [
  'DEFINED',
  'READY',
  'ASSIGNED',
  'IN_PROGRESS',
  'WAITING_INPUT',
  'PAUSED',
  'AWAITING_APPROVAL',
  'COMPLETED',
  'FAILED',
  'BLOCKED',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses of a task while a run holds it: claimed, running, or waiting on a person. */
export const RUNNING_STATUSES = ['ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT'] as const satisfies readonly TaskStatus[];

/**
 * RUNNING_STATUSES as SQL literals (`'ASSIGNED', …`), for `status in (…)`: written into a
 * statement's text, where PostgreSQL plans a literal list once; bound values can make it plan at
 * every run.
 */
export const RUNNING_SQL = RUNNING_STATUSES.map((s) => `'${s}'`).join(', ');

@Entity({ tableName: 'tasks' })
@Index({ name: 'tasks_project_status_order', properties: ['project', 'status', 'priority', 'createdAt'] })
@Index({ name: 'tasks_status_order', properties: ['status', 'priority', 'createdAt'] })
@Index({ name: 'tasks_order', properties: ['priority', 'createdAt'] })
@Index({ name: 'tasks_project_order', properties: ['project', 'priority', 'createdAt'] })
export class Task {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade', fieldName: 'project_id' })
  project!: Project;

  @Property({ type: 'string' })
  title!: string;

  @Property({ type: 'text' })
  description!: string;

  @Property({ type: 'string', default: 'READY' })
  status: TaskStatus & Opt = 'READY';

  /** Lower means more urgent. */
  @Property({ type: 'integer', default: 100 })
  priority: number & Opt = 100;

  @Index()
  @Property({ type: 'string', nullable: true })
  assignedAgent?: string | null;

  @Property({ type: 'integer', default: 0 })
  retryCount: number & Opt = 0;

  @Property({ type: 'integer', default: 3 })
  maxRetries: number & Opt = 3;

  @Property({ type: 'boolean', default: false })
  requiresApproval: boolean & Opt = false;

  @Property({ type: 'string', nullable: true })
  prUrl?: string | null;

  @Property({ type: 'string', nullable: true })
  repoId?: string | null;

  @Property({ type: 'string', nullable: true })
  branchName?: string | null;

  @Index()
  @Property({ type: 'string', nullable: true })
  parentTaskId?: string | null;

  @Property({ type: 'boolean', default: false })
  isPlanSubtask: boolean & Opt = false;

  /** Depth in the plan tree: 0 for tasks people create, parent + 1 for plan subtasks. */
  @Property({ type: 'integer', default: 0 })
  planDepth: number & Opt = 0;

  @Property({ type: 'string', nullable: true })
  planSource?: string | null;

  /** When false, a plan file the agent leaves behind is not turned into subtasks. */
  @Property({ type: 'boolean', default: true })
  autoTasks: boolean & Opt = true;

  @Property({ type: 'string', nullable: true })
  preferredWorkspaceId?: string | null;

  /** Workspace the task last ran in (kept after the lock is released). */
  @Property({ type: 'string', nullable: true })
  workspaceId?: string | null;

  /** For PAUSED tasks: when the scheduler may make them READY again. */
  @Property({ type: DateTimeType, nullable: true })
  resumeAfter?: Date | null;

  @Property({ type: 'string', nullable: true })
  pauseReason?: string | null;

  /** A permalink to the Slack thread the task was asked for in, if it came from one. */
  @Property({ type: 'string', nullable: true })
  sourceUrl?: string | null;

  /** The Slack user who asked for the task (create_task from Slack or the chat agent), if any. */
  @Property({ type: 'string', nullable: true })
  requestedBy?: string | null;

  /** Set when a task was completed by skip_task rather than by work. */
  @Property({ type: 'boolean', default: false })
  skipped: boolean & Opt = false;

  /**
   * The backend the task runs on (`claude-code`, `acp`, `acp:<profile>`): asked for at creation,
   * or fixed by its first run so follow-ups resume the same vendor's session.
   */
  @Property({ type: 'string', nullable: true })
  backend?: string | null;

  /** The run that holds the task (task_runs.id): the run's moves are fenced on it. */
  @Property({ type: 'string', nullable: true })
  currentRunId?: string | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();

  @Property({ type: DateTimeType, onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();

  @Property({ type: DateTimeType, nullable: true })
  startedAt?: Date | null;

  @Property({ type: DateTimeType, nullable: true })
  completedAt?: Date | null;
}
