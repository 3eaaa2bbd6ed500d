import type { TaskStatus } from '../value-sets';
import { storedDate, storedFlag } from './column-values';

/** A task as repositories, commands and the orchestrator see it: a row of `tasks`, unset columns as null. */
export interface TaskRecord {
  id: string;
  projectId: string;
  title: string;
  description: string;
  status: TaskStatus;
  /** Lower means more urgent. */
  priority: number;
  assignedAgent: string | null;
  retryCount: number;
  maxRetries: number;
  requiresApproval: boolean;
  prUrl: string | null;
  repoId: string | null;
  branchName: string | null;
  parentTaskId: string | null;
  isPlanSubtask: boolean;
  /** Depth in the plan tree: 0 for tasks people create, parent + 1 for plan subtasks. */
  planDepth: number;
  planSource: string | null;
  /** When false, a plan file the agent leaves behind is not turned into subtasks. */
  autoTasks: boolean;
  preferredWorkspaceId: string | null;
  /** Workspace the task last ran in (kept after the lock is released). */
  workspaceId: string | null;
  /** For PAUSED tasks: when the scheduler may make them READY again. */
  resumeAfter: Date | null;
  pauseReason: string | null;
  /** A permalink to the Slack thread the task was asked for in, if it came from one. */
  sourceUrl: string | null;
  /** The Slack user who asked for the task (create_task from Slack or the chat agent), if any. */
  requestedBy: string | null;
  /** Set when a task was completed by skip_task rather than by work. */
  skipped: boolean;
  /**
   * The backend the task runs on (`claude-code`, `acp`, `acp:<profile>`): asked for at creation,
   * or fixed by its first run so follow-ups resume the same vendor's session.
   */
  backend: string | null;
  /** The run that holds the task (task_runs.id): the run's moves are fenced on it. */
  currentRunId: string | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** The fields a caller may set when creating a task. */
export interface NewTask {
  projectId: string;
  title: string;
  description: string;
  status?: TaskStatus;
  priority?: number;
  requiresApproval?: boolean;
  repoId?: string | null;
  branchName?: string | null;
  parentTaskId?: string | null;
  isPlanSubtask?: boolean;
  planDepth?: number;
  planSource?: string | null;
  autoTasks?: boolean;
  preferredWorkspaceId?: string | null;
  maxRetries?: number;
  sourceUrl?: string | null;
  requestedBy?: string | null;
  backend?: string | null;
}

/** Field changes; the status is not among them; it moves only through `transition`. */
export type TaskUpdate = Partial<Omit<TaskRecord, 'id' | 'projectId' | 'status' | 'createdAt' | 'updatedAt'>>;

/**
 * The column of each field of a TaskRecord.
 * Typed on the record, so a field added there and missing here fails the type check.
 */
const TASK_COLUMN: { [K in keyof TaskRecord]: string } = {
  id: 'id',
  projectId: 'project_id',
  title: 'title',
  description: 'description',
  status: 'status',
  priority: 'priority',
  assignedAgent: 'assigned_agent',
  retryCount: 'retry_count',
  maxRetries: 'max_retries',
  requiresApproval: 'requires_approval',
  prUrl: 'pr_url',
  repoId: 'repo_id',
  branchName: 'branch_name',
  parentTaskId: 'parent_task_id',
  isPlanSubtask: 'is_plan_subtask',
  planDepth: 'plan_depth',
  planSource: 'plan_source',
  autoTasks: 'auto_tasks',
  preferredWorkspaceId: 'preferred_workspace_id',
  workspaceId: 'workspace_id',
  resumeAfter: 'resume_after',
  pauseReason: 'pause_reason',
  sourceUrl: 'source_url',
  requestedBy: 'requested_by',
  skipped: 'skipped',
  backend: 'backend',
  currentRunId: 'current_run_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
};

/** The tasks columns of a TaskRecord, as a plain statement selects them. */
export const TASK_COLUMNS = Object.values(TASK_COLUMN).join(', ');

/** The fields a TaskUpdate leaves out: a move sets the status and the time itself. */
const NOT_UPDATED: ReadonlySet<string> = new Set(['id', 'projectId', 'status', 'createdAt', 'updatedAt'] satisfies Array<
  Exclude<keyof TaskRecord, keyof TaskUpdate>
>);

/** A row of TASK_COLUMNS as either database returns it (booleans 0/1 and numbers as text on one or the other). */
export type TaskRow = Record<string, unknown>;

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A TaskRecord from a row of TASK_COLUMNS. */
export function taskFromRow(r: TaskRow): TaskRecord {
  return {
    id: String(r.id),
    projectId: String(r.project_id),
    title: String(r.title),
    description: String(r.description),
    status: r.status as TaskStatus,
    priority: Number(r.priority),
    assignedAgent: text(r.assigned_agent),
    retryCount: Number(r.retry_count),
    maxRetries: Number(r.max_retries),
    requiresApproval: storedFlag(r.requires_approval),
    prUrl: text(r.pr_url),
    repoId: text(r.repo_id),
    branchName: text(r.branch_name),
    parentTaskId: text(r.parent_task_id),
    isPlanSubtask: storedFlag(r.is_plan_subtask),
    planDepth: Number(r.plan_depth),
    planSource: text(r.plan_source),
    autoTasks: storedFlag(r.auto_tasks),
    preferredWorkspaceId: text(r.preferred_workspace_id),
    workspaceId: text(r.workspace_id),
    resumeAfter: storedDate(r.resume_after),
    pauseReason: text(r.pause_reason),
    sourceUrl: text(r.source_url),
    requestedBy: text(r.requested_by),
    skipped: storedFlag(r.skipped),
    backend: text(r.backend),
    currentRunId: text(r.current_run_id),
    createdAt: new Date(Number(r.created_at)),
    updatedAt: new Date(Number(r.updated_at)),
    startedAt: storedDate(r.started_at),
    completedAt: storedDate(r.completed_at),
  };
}

/** The record of a task `create` makes: `data`, and what a new task starts with for the rest. */
export function newTaskRecord(id: string, data: NewTask, now: Date): TaskRecord {
  return {
    id,
    projectId: data.projectId,
    title: data.title,
    description: data.description,
    status: data.status ?? 'READY',
    priority: data.priority ?? 100,
    assignedAgent: null,
    retryCount: 0,
    maxRetries: data.maxRetries ?? 3,
    requiresApproval: data.requiresApproval ?? false,
    prUrl: null,
    repoId: data.repoId ?? null,
    branchName: data.branchName ?? null,
    parentTaskId: data.parentTaskId ?? null,
    isPlanSubtask: data.isPlanSubtask ?? false,
    planDepth: data.planDepth ?? 0,
    planSource: data.planSource ?? null,
    autoTasks: data.autoTasks ?? true,
    preferredWorkspaceId: data.preferredWorkspaceId ?? null,
    workspaceId: null,
    resumeAfter: null,
    pauseReason: null,
    sourceUrl: data.sourceUrl ?? null,
    requestedBy: data.requestedBy ?? null,
    skipped: false,
    backend: data.backend ?? null,
    currentRunId: null,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
  };
}

/** The insert of a whole task row, every column of TASK_COLUMN with its value bound. */
export function taskInsert(task: TaskRecord): { sql: string; params: unknown[] } {
  const keys = Object.keys(TASK_COLUMN) as Array<keyof TaskRecord>;
  return {
    sql: `insert into tasks (${keys.map((k) => TASK_COLUMN[k]).join(', ')}) values (${keys.map(() => '?').join(', ')})`,
    params: keys.map((k) => task[k]),
  };
}

/**
 * `column = ?, …` for the fields of `changes`, and their values: a field given as undefined is
 * set to null, as the ORM's update did; the platform writes dates as epoch milliseconds.
 */
export function taskAssignments(changes: TaskUpdate): { columns: string[]; params: unknown[] } {
  const keys = Object.keys(changes) as Array<keyof TaskUpdate>;
  const unknown = keys.find((k) => !Object.hasOwn(TASK_COLUMN, k) || NOT_UPDATED.has(k));
  if (unknown) throw new Error(`A task update cannot set "${unknown}".`);
  return { columns: keys.map((k) => `${TASK_COLUMN[k]} = ?`), params: keys.map((k) => changes[k] ?? null) };
}
