import type { Database } from '../db/database';
import { PAUSED_KEY } from '../db/repositories/scheduling';
import type { TaskStatus } from '../db/value-sets';
import type { TaskRecord, TaskUpdate } from '../db/repositories/tasks';
import type { EventLog } from './events';
import type { ForcedStatus, RestartResult, SkipResult, TaskControlPort } from './port';
import { TaskStateMachine, type TaskEvent, type TransitionOutcome } from './state-machine';
import { TaskOperationError } from './task-errors';
import { promoteWaiting } from './task-moves';

/** The sentences for a refused operation: the status that did not allow it, and a race lost. */
interface Refusals {
  wrongStatus(status: TaskStatus): string;
  conflict: string;
}

/** The task a move was made on, or the TaskOperationError that says why it was not. */
function movedOrThrow(taskId: string, outcome: TransitionOutcome, refusals: Refusals): TaskRecord {
  if (outcome.ok) return outcome.task;
  if (outcome.reason === 'not_found') throw new TaskOperationError('not_found', `Task '${taskId}' not found.`);
  if (outcome.reason === 'refused') throw new TaskOperationError('wrong_status', refusals.wrongStatus(outcome.from));
  throw new TaskOperationError('conflict', refusals.conflict);
}

/**
 * The orchestrator's task controls as pure database work, shared by every process; every status
 * change goes through the state machine. The daemon's orchestrator watches the same rows, so a
 * stop written here also ends a live run there. Refusals throw TaskOperationError.
 */
export class TaskControl implements TaskControlPort {
  readonly machine: TaskStateMachine;

  constructor(
    protected readonly db: Database,
    protected readonly events: EventLog,
    log?: (message: string) => void,
  ) {
    this.machine = new TaskStateMachine(db, log);
  }

  private async move(taskId: string, event: TaskEvent, changes: TaskUpdate, refusals: Refusals): Promise<TaskRecord> {
    return movedOrThrow(taskId, await this.machine.fire(taskId, event, changes, { quiet: true }), refusals);
  }

  async stopTask(taskId: string): Promise<void> {
    let outcome: TransitionOutcome = { ok: false, reason: 'not_found' };
    // A run changes status on its own (IN_PROGRESS ⇄ WAITING_INPUT when its agent asks a person):
    // a stop that races such a move reads the task again rather than failing.
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.db.taskRuns.stopRun(taskId, async (tx) => {
        outcome = await this.machine.within(tx).fire(taskId, 'ADMIN_STOP', { assignedAgent: null }, { quiet: true });
        return outcome.ok;
      });
      const last = outcome as TransitionOutcome; // assigned in the callback, which TypeScript does not follow
      if (last.ok || last.reason !== 'raced') break;
    }
    const task = movedOrThrow(taskId, outcome, {
      wrongStatus: (status) => `Task '${taskId}' is ${status}, not IN_PROGRESS: only running tasks can be stopped.`,
      conflict: `Task '${taskId}' is no longer IN_PROGRESS.`,
    });
    await this.events.emit('task_stopped', { projectId: task.projectId, taskId, payload: { title: task.title } });
    const stuck = await this.db.tasks.stuckDownstream(taskId);
    if (stuck.length > 0) {
      await this.events.emit('chain_stuck', {
        projectId: task.projectId,
        taskId,
        payload: { title: task.title, stuck_downstream: stuck.map((s) => ({ id: s.id, title: s.title })) },
      });
    }
  }

  async skipTask(taskId: string): Promise<SkipResult> {
    const task = await this.move(
      taskId,
      'ADMIN_SKIP',
      { skipped: true, completedAt: new Date() },
      {
        wrongStatus: (status) => `Task '${taskId}' is ${status}: only BLOCKED or FAILED tasks can be skipped.`,
        conflict: `Task '${taskId}' changed while skipping; look at it again.`,
      },
    );
    await this.events.emit('task_skipped', { projectId: task.projectId, taskId, payload: { title: task.title } });
    const promoted = await promoteWaiting(this.db, this.machine, taskId);
    for (const p of promoted) {
      await this.events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title, by: taskId } });
    }
    return { skipped: taskId, unblocked: promoted.map((p) => ({ id: p.id, title: p.title })) };
  }

  async restartTask(taskId: string): Promise<RestartResult> {
    const task = await this.move(
      taskId,
      'ADMIN_RESTART',
      { retryCount: 0, assignedAgent: null, resumeAfter: null, pauseReason: null },
      {
        wrongStatus: (status) =>
          status === 'IN_PROGRESS'
            ? `Task '${taskId}' is IN_PROGRESS. Stop it first (stop_task), then restart it.`
            : `Task '${taskId}' is ${status} and cannot be restarted.`,
        conflict: `Task '${taskId}' changed while restarting; try again.`,
      },
    );
    await this.events.emit('task_restarted', {
      projectId: task.projectId,
      taskId,
      payload: { title: task.title, previous_status: task.status },
    });
    return { title: task.title, previousStatus: task.status };
  }

  async approveTask(taskId: string, approvedBy?: string | null): Promise<{ title: string }> {
    const task = await this.move(
      taskId,
      'ADMIN_APPROVE',
      { completedAt: new Date() },
      {
        wrongStatus: (status) => `Task '${taskId}' is ${status}, not AWAITING_APPROVAL, so there is nothing to approve.`,
        conflict: `Task '${taskId}' was already handled by someone else.`,
      },
    );
    await this.events.emit('task_completed', {
      projectId: task.projectId,
      taskId,
      payload: { title: task.title, approved: true, ...(approvedBy && { approved_by: approvedBy }) },
    });
    for (const p of await promoteWaiting(this.db, this.machine, taskId)) {
      await this.events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title } });
    }
    return { title: task.title };
  }

  async setTaskStatus(taskId: string, status: TaskStatus): Promise<ForcedStatus> {
    const outcome = await this.machine.force(taskId, status);
    if (!outcome.ok) {
      if (outcome.reason === 'not_found') throw new TaskOperationError('not_found', `Task '${taskId}' not found.`);
      throw new TaskOperationError('conflict', `Task '${taskId}' changed while its status was being set; look at it again.`);
    }
    const { task, from, outsideTable } = outcome;
    await this.events.emit('task_status_forced', {
      projectId: task.projectId,
      taskId,
      payload: { title: task.title, old_status: from, new_status: status, outside_state_machine: outsideTable },
    });
    return { title: task.title, oldStatus: from, newStatus: status, outsideTable };
  }

  async isPaused(): Promise<boolean> {
    return this.db.state.get(PAUSED_KEY, false);
  }

  async pause(): Promise<void> {
    await this.db.state.set(PAUSED_KEY, true);
  }

  async resume(): Promise<void> {
    await this.db.state.set(PAUSED_KEY, false);
  }

  async runningTaskCount(): Promise<number> {
    return this.db.tasks.countInStatus('IN_PROGRESS');
  }
}
