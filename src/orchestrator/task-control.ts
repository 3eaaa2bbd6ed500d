import type { Database } from '../db/database';
import type { EventLog } from './events';
import type { HookEnginePort, OrchestratorPort, SkipOutcome } from './port';

const PAUSED_KEY = 'orchestrator_paused';

/**
 * The orchestrator's task controls as pure database work, shared by every process. The daemon's
 * orchestrator watches the same rows, so a stop written here also ends a live run there.
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
    const moved = await this.db.transaction(async (em) => {
      const now = new Date();
      const changed = await em.execute(
        "update tasks set status = 'BLOCKED', assigned_agent = null, updated_at = ? where id = ? and status = 'IN_PROGRESS'",
        [now, taskId],
        'run',
      );
      if (Number((changed as { affectedRows?: number }).affectedRows ?? 0) === 0) return false;
      await em.execute(
        "update agents set state = case when state = 'BUSY' then 'IDLE' else state end, current_task = null where current_task = ?",
        [taskId],
      );
      await em.execute(
        'update workspaces set locked_by_task_id = null, locked_by_agent_id = null, locked_at = null where locked_by_task_id = ?',
        [taskId],
      );
      return true;
    });
    if (!moved) return `Task '${taskId}' is no longer IN_PROGRESS.`;
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
    const task = await this.db.tasks.get(taskId);
    if (!task) return { error: `Task '${taskId}' not found.` };
    if (task.status !== 'BLOCKED' && task.status !== 'FAILED') {
      return { error: `Task '${taskId}' is ${task.status}: only BLOCKED or FAILED tasks can be skipped.` };
    }
    const now = new Date();
    const moved = await this.db.tasks.transition(taskId, ['BLOCKED', 'FAILED'], 'COMPLETED', { skipped: true, completedAt: now });
    if (!moved) return { error: `Task '${taskId}' changed while skipping; look at it again.` };
    await this.events.emit('task_skipped', { projectId: task.projectId, taskId, payload: { title: task.title } });
    const promoted = await this.db.tasks.promoteDefined(taskId);
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
