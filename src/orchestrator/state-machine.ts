import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { TASK_STATUSES, type TaskStatus } from '../db/value-sets';
import { TaskRepository, type TaskRecord, type TaskUpdate } from '../db/repositories/tasks';

/** What happened to a task; the table below says where each event may take it. */
export const TASK_EVENTS = [
  'DEPS_MET',
  'DEPS_ADDED',
  'ASSIGN',
  'AGENT_STARTED',
  'LAUNCH_FAILED',
  'AGENT_COMPLETED',
  'PR_CREATED',
  'AGENT_FAILED',
  'RATE_LIMITED',
  'RETRY',
  'MAX_RETRIES',
  'RESUME_TIMER',
  'RECOVERY',
  'ADMIN_STOP',
  'ADMIN_SKIP',
  'ADMIN_RESTART',
  'ADMIN_APPROVE',
  'PR_MERGED',
  'PR_CLOSED',
  'FOLLOW_UP',
  'INPUT_NEEDED',
  'INPUT_RECEIVED',
  'INPUT_TIMEOUT',
] as const;
export type TaskEvent = (typeof TASK_EVENTS)[number];

type Table = Record<TaskStatus, Partial<Record<TaskEvent, TaskStatus>>>;

/**
 * `(status, event) → status`. Anything not listed is refused, and every row is a move some path
 * of ours makes (test/integration/orchestrator/state-machine-transitions.test.ts drives each
 * one). A run's outcome leaves IN_PROGRESS; FAILED is the short stop between a failed run and
 * its retry or its block, so a failed run is visible even if the daemon dies right then.
 * ADMIN_RESTART works from every status but IN_PROGRESS: set_task_status can put a task anywhere.
 * FOLLOW_UP is a message to a finished task's agent: it runs again, resuming its session.
 * WAITING_INPUT is a run held while its agent waits for a person (a question or a permission):
 * INPUT_RECEIVED lets it go on, INPUT_TIMEOUT blocks it when the project says so, and a stop or
 * a dead daemon ends it like a running task.
 */
const TABLE: Table = {
  DEFINED: { DEPS_MET: 'READY', ADMIN_RESTART: 'READY' },
  READY: { ASSIGN: 'ASSIGNED', DEPS_ADDED: 'DEFINED', ADMIN_RESTART: 'READY' },
  ASSIGNED: { AGENT_STARTED: 'IN_PROGRESS', LAUNCH_FAILED: 'READY', RECOVERY: 'READY', ADMIN_RESTART: 'READY' },
  IN_PROGRESS: {
    AGENT_COMPLETED: 'COMPLETED',
    PR_CREATED: 'AWAITING_APPROVAL',
    AGENT_FAILED: 'FAILED',
    RATE_LIMITED: 'PAUSED',
    ADMIN_STOP: 'BLOCKED',
    RECOVERY: 'READY',
    INPUT_NEEDED: 'WAITING_INPUT',
  },
  WAITING_INPUT: {
    INPUT_RECEIVED: 'IN_PROGRESS',
    INPUT_TIMEOUT: 'BLOCKED',
    ADMIN_STOP: 'BLOCKED',
    RECOVERY: 'READY',
    ADMIN_RESTART: 'READY',
  },
  PAUSED: { RESUME_TIMER: 'READY', ADMIN_RESTART: 'READY' },
  AWAITING_APPROVAL: {
    ADMIN_APPROVE: 'COMPLETED',
    PR_MERGED: 'COMPLETED',
    PR_CLOSED: 'BLOCKED',
    ADMIN_RESTART: 'READY',
    FOLLOW_UP: 'READY',
  },
  COMPLETED: { ADMIN_RESTART: 'READY', FOLLOW_UP: 'READY' },
  FAILED: { RETRY: 'READY', MAX_RETRIES: 'BLOCKED', ADMIN_SKIP: 'COMPLETED', ADMIN_RESTART: 'READY', FOLLOW_UP: 'READY' },
  BLOCKED: { ADMIN_SKIP: 'COMPLETED', ADMIN_RESTART: 'READY', FOLLOW_UP: 'READY' },
};

/**
 * Where each event takes a task: one status, whatever it comes from, which lets a move be one
 * compare-and-set on all the statuses it may come from (TaskStateMachine.fire).
 */
const TARGETS: Partial<Record<TaskEvent, TaskStatus>> = Object.fromEntries(
  Object.values(TABLE).flatMap((moves) => Object.entries(moves) as Array<[TaskEvent, TaskStatus]>),
);

/** Where `event` takes a task in `status`, or null when the move is not allowed. */
export function nextStatus(status: TaskStatus, event: TaskEvent): TaskStatus | null {
  return TABLE[status]?.[event] ?? null;
}

/** Every status from which `event` is allowed. */
export function statusesAccepting(event: TaskEvent): TaskStatus[] {
  return (Object.keys(TABLE) as TaskStatus[]).filter((s) => TABLE[s][event] !== undefined);
}

/** Every row of the table. */
export function transitions(): Array<{ from: TaskStatus; event: TaskEvent; to: TaskStatus }> {
  return (Object.keys(TABLE) as TaskStatus[]).flatMap((from) =>
    (Object.entries(TABLE[from]) as Array<[TaskEvent, TaskStatus]>).map(([event, to]) => ({ from, event, to })),
  );
}

/** Whether some event of the table moves a task from `from` to `to`. */
export function isTableMove(from: TaskStatus, to: TaskStatus): boolean {
  return Object.values(TABLE[from]).includes(to);
}

export type TransitionOutcome =
  | { ok: true; from: TaskStatus; to: TaskStatus; task: TaskRecord }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'refused' | 'raced'; from: TaskStatus; task: TaskRecord };

export interface FireOptions {
  /** The statuses the caller expects the task to be in; any other is refused. */
  from?: TaskStatus[];
  /** The caller reports a refusal itself (a person asked for a move the task is not ready for). */
  quiet?: boolean;
}

export type ForceOutcome =
  | { ok: true; from: TaskStatus; to: TaskStatus; task: TaskRecord; outsideTable: boolean }
  | { ok: false; reason: 'not_found' | 'raced' };

/**
 * The one door for a task's status. Enforces the table against the database: writes a move as
 * compare-and-set on the statuses the table moves it from, so a concurrent change by another
 * process makes the write miss instead of clobbering it, and when it misses reads the task to say
 * why: refused (and logged) when the table does not allow the move from where the task is, raced
 * when another process moved it meanwhile. `within(tx)` makes the move part of a wider
 * transaction (launch claims, stops, recovery, promotion), and `force` is set_task_status's
 * repair hatch.
 */
export class TaskStateMachine {
  private readonly tasks: TaskRepository;

  constructor(
    db: { tasks: TaskRepository },
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {
    this.tasks = db.tasks;
  }

  /** The same machine writing through `tx`, so its move commits or rolls back with the rest. */
  within(tx: SqlEntityManager): TaskStateMachine {
    return new TaskStateMachine({ tasks: new TaskRepository(() => tx) }, this.log);
  }

  async fire(taskId: string, event: TaskEvent, changes: TaskUpdate = {}, options: FireOptions = {}): Promise<TransitionOutcome> {
    const accepting = statusesAccepting(event).filter((s) => !options.from || options.from.includes(s));
    const to = TARGETS[event];
    // The move first, as compare-and-set on every status it may come from: on success the
    // repository answers the task as it was, so the move costs no read of its own.
    const moved = to ? await this.tasks.transition(taskId, accepting, to, changes) : null;
    if (moved && to) return { ok: true, from: moved.status, to, task: moved };
    const task = await this.tasks.get(taskId);
    if (!task) return { ok: false, reason: 'not_found' };
    const from = task.status;
    if (!to || !accepting.includes(from)) {
      if (!options.quiet) {
        this.log(
          `State machine refused ${event} for task ${taskId} in ${from}${options.from ? ` (expected ${options.from.join('/')})` : ''}.`,
        );
      }
      return { ok: false, reason: 'refused', from, task };
    }
    // It was in a status the move takes now, but not when the move was tried: another process moved it.
    this.log(`Task ${taskId} changed while applying ${event} (${from} → ${to}); left as it is.`);
    return { ok: false, reason: 'raced', from, task };
  }

  /**
   * Puts the task in `to` whatever the table says and whatever status it is in, and says which
   * status that was (read by the move itself on PostgreSQL, just before it on SQLite). A move no
   * event allows is reported as `outsideTable`, for the caller to put on record.
   */
  async force(taskId: string, to: TaskStatus): Promise<ForceOutcome> {
    const moved = await this.tasks.transition(taskId, [...TASK_STATUSES], to);
    if (moved)
      return { ok: true, from: moved.status, to, task: moved, outsideTable: moved.status !== to && !isTableMove(moved.status, to) };
    return (await this.tasks.get(taskId)) ? { ok: false, reason: 'raced' } : { ok: false, reason: 'not_found' };
  }
}
