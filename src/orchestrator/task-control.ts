import type { Database } from '../db/database';
import type { EventLog } from './events';
import type { HookEnginePort, OrchestratorPort, SkipOutcome } from './port';

const PAUSED_KEY = 'orchestrator_paused';

/**
 * The orchestrator's task controls as pure database work, shared by every process. The daemon's
 * scheduler watches the same rows, so a stop written here also ends a live run there.
 */
export class TaskControl implements OrchestratorPort {
  hookEngine: HookEnginePort | null = null;
  restartRequested = false;

  constructor(
    protected readonly db: Database,
    protected readonly events: EventLog,
  ) {}

  async stopTask(taskId: string): Promise<string | null> {
    const task = await this.db.tasks.get(taskId);
    if (!task) return `Task '${taskId}' not found.`;
    if (task.status !== 'IN_PROGRESS') {
      return `Task '${taskId}' is ${task.status}, not IN_PROGRESS: only running tasks can be stopped.`;
    }
    // TODO(issue 3): release the agent and the workspace lock in the same transaction.
    const moved = await this.db.tasks.transition(taskId, ['IN_PROGRESS'], 'BLOCKED', { assignedAgent: null });
    if (!moved) return `Task '${taskId}' is no longer IN_PROGRESS.`;
    await this.events.emit('task_stopped', { projectId: task.projectId, taskId });
    return null;
  }

  async skipTask(taskId: string): Promise<SkipOutcome> {
    return { error: `skip_task is not implemented yet (task ${taskId}).` };
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
