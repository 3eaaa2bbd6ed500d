import type { Database } from '../db/database';
import type { TaskStatus } from '../db/entities';
import type { TaskUpdate } from '../db/repositories/tasks';

/** What happened to a task; the table below says where each event may take it. */
export const TASK_EVENTS = [
  'DEPS_MET',
  'ASSIGN',
  'AGENT_STARTED',
  'AGENT_COMPLETED',
  'AGENT_FAILED',
  'RATE_LIMITED',
  'AGENT_QUESTION',
  'HUMAN_REPLIED',
  'RESUME_TIMER',
  'PR_CREATED',
  'PR_MERGED',
  'PR_CLOSED',
  'RETRY',
  'MAX_RETRIES',
  'MERGE_FAILED',
  'LAUNCH_FAILED',
  'NO_WORKSPACE',
  'ADMIN_STOP',
  'ADMIN_SKIP',
  'ADMIN_RESTART',
  'ADMIN_APPROVE',
  'RECOVERY',
] as const;
export type TaskEvent = (typeof TASK_EVENTS)[number];

type Table = Record<TaskStatus, Partial<Record<TaskEvent, TaskStatus>>>;

const RESTARTABLE: TaskStatus[] = ['DEFINED', 'READY', 'ASSIGNED', 'WAITING_INPUT', 'PAUSED', 'AWAITING_APPROVAL', 'COMPLETED', 'FAILED', 'BLOCKED'];

/**
 * `(status, event) → status`. Anything not listed is refused. A run's outcome (AGENT_COMPLETED
 * / AGENT_FAILED) leaves IN_PROGRESS; FAILED is the short stop between a failed run and its
 * retry or its block, so a failed run is visible even if the daemon dies right then.
 */
const TABLE: Table = {
  DEFINED: { DEPS_MET: 'READY', NO_WORKSPACE: 'BLOCKED' },
  READY: { ASSIGN: 'ASSIGNED', NO_WORKSPACE: 'BLOCKED' },
  ASSIGNED: { AGENT_STARTED: 'IN_PROGRESS', LAUNCH_FAILED: 'READY', RECOVERY: 'READY' },
  IN_PROGRESS: {
    AGENT_COMPLETED: 'COMPLETED',
    PR_CREATED: 'AWAITING_APPROVAL',
    AGENT_FAILED: 'FAILED',
    RATE_LIMITED: 'PAUSED',
    AGENT_QUESTION: 'WAITING_INPUT',
    MERGE_FAILED: 'BLOCKED',
    MAX_RETRIES: 'BLOCKED',
    ADMIN_STOP: 'BLOCKED',
    LAUNCH_FAILED: 'READY',
    RECOVERY: 'READY',
    RETRY: 'READY',
  },
  WAITING_INPUT: { HUMAN_REPLIED: 'READY', RESUME_TIMER: 'PAUSED' },
  PAUSED: { RESUME_TIMER: 'READY' },
  AWAITING_APPROVAL: { PR_MERGED: 'COMPLETED', ADMIN_APPROVE: 'COMPLETED', PR_CLOSED: 'BLOCKED' },
  COMPLETED: {},
  FAILED: { RETRY: 'READY', MAX_RETRIES: 'BLOCKED', ADMIN_SKIP: 'COMPLETED' },
  BLOCKED: { ADMIN_SKIP: 'COMPLETED' },
};
for (const status of RESTARTABLE) TABLE[status].ADMIN_RESTART = 'READY';

/** Where `event` takes a task in `status`, or null when the move is not allowed. */
export function nextStatus(status: TaskStatus, event: TaskEvent): TaskStatus | null {
  return TABLE[status]?.[event] ?? null;
}

/** Every status from which `event` is allowed. */
export function statusesAccepting(event: TaskEvent): TaskStatus[] {
  return (Object.keys(TABLE) as TaskStatus[]).filter((s) => TABLE[s][event] !== undefined);
}

export type TransitionOutcome =
  | { ok: true; from: TaskStatus; to: TaskStatus }
  | { ok: false; reason: 'not_found' | 'refused' | 'raced'; from?: TaskStatus };

/**
 * Enforces the table against the database: reads the status, refuses (and logs) a move the
 * table does not allow, and writes the allowed one as compare-and-set on that status, so a
 * concurrent change by another process makes the write miss instead of clobbering it.
 * `set_task_status` deliberately does not come through here (it forces).
 */
export class TaskStateMachine {
  constructor(
    private readonly db: Database,
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {}

  async fire(taskId: string, event: TaskEvent, changes: TaskUpdate = {}, expected?: TaskStatus[]): Promise<TransitionOutcome> {
    const task = await this.db.tasks.get(taskId);
    if (!task) return { ok: false, reason: 'not_found' };
    const from = task.status;
    const to = nextStatus(from, event);
    if (!to || (expected && !expected.includes(from))) {
      this.log(`State machine refused ${event} for task ${taskId} in ${from}${expected ? ` (expected ${expected.join('/')})` : ''}.`);
      return { ok: false, reason: 'refused', from };
    }
    const moved = await this.db.tasks.transition(taskId, [from], to, changes);
    if (!moved) {
      this.log(`Task ${taskId} changed while applying ${event} (${from} → ${to}); left as it is.`);
      return { ok: false, reason: 'raced', from };
    }
    return { ok: true, from, to };
  }
}
