import type { Database } from '../db/database';
import type { EventLog } from './events';
import type { HookEnginePort, OrchestratorPort, SkipOutcome } from './port';
import { TaskStateMachine, type TransitionOutcome } from './state-machine';
import { promoteWaiting } from './task-moves';

const PAUSED_KEY = 'orchestrator_paused';

/**
 * The orchestrator's task controls as pure database work, shared by every process; every status
 * change goes through the state machine. The daemon's orchestrator watches the same rows, so a
 * stop written here also ends a live run there.
 */
export class TaskControl implements OrchestratorPort {
  hookEngine: HookEnginePort | null = null;
  restartRequested = false;
  readonly machine: TaskStateMachine;

  constructor(
    protected readonly db: Database,
    protected readonly events: EventLog,
    log?: (message: string) => void,
  ) {
    this.machine = new TaskStateMachine(db, log);
  }

  async stopTask(taskId: string): Promise<string | null> {
    let outcome: TransitionOutcome = { ok: false, reason: 'not_found' };
    await this.db.taskRuns.stopRun(taskId, async (tx) => {
      outcome = await this.machine.within(tx).fire(taskId, 'ADMIN_STOP', { assignedAgent: null }, { quiet: true });
      return outcome.ok;
    });
    const stopped = outcome as TransitionOutcome;
    if (!stopped.ok) {
      if (stopped.reason === 'not_found') return `Task '${taskId}' not found.`;
      if (stopped.reason === 'refused') return `Task '${taskId}' is ${stopped.from}, not IN_PROGRESS: only running tasks can be stopped.`;
      return `Task '${taskId}' is no longer IN_PROGRESS.`;
    }
    const { task } = stopped;
    await this.events.emit('task_stopped', { projectId: task.projectId, taskId, payload: { title: task.title } });
    const stuck = await this.db.tasks.stuckDownstream(taskId);
    if (stuck.length > 0) {
      await this.events.emit('chain_stuck', {
        projectId: task.projectId,
        taskId,
        payload: { title: task.title, stuck_downstream: stuck.map((s) => ({ id: s.id, title: s.title })) },
      });
    }
    return null;
  }

  async skipTask(taskId: string): Promise<SkipOutcome> {
    const outcome = await this.machine.fire(taskId, 'ADMIN_SKIP', { skipped: true, completedAt: new Date() }, { quiet: true });
    if (!outcome.ok) {
      if (outcome.reason === 'not_found') return { error: `Task '${taskId}' not found.` };
      if (outcome.reason === 'refused') return { error: `Task '${taskId}' is ${outcome.from}: only BLOCKED or FAILED tasks can be skipped.` };
      return { error: `Task '${taskId}' changed while skipping; look at it again.` };
    }
    const { task } = outcome;
    await this.events.emit('task_skipped', { projectId: task.projectId, taskId, payload: { title: task.title } });
    const promoted = await promoteWaiting(this.db, this.machine, taskId);
    for (const p of promoted) {
      await this.events.emit('task_unblocked', { projectId: p.projectId, taskId: p.id, payload: { title: p.title, by: taskId } });
    }
    return { skipped: taskId, unblocked: promoted.map((p) => ({ id: p.id, title: p.title })) };
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
