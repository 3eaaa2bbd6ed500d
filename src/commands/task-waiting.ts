import type { TaskRecord } from '../db/repositories/tasks';
import { taskWaitingReason } from '../orchestrator/waiting-reasons';
import type { CommandContext } from './catalog';
import { settleAll } from '../util/settle-all';

/** waiting_reason and waiting_code (and waiting_until) for a task that waits to start; none otherwise. */
export async function waitingKeys(ctx: CommandContext, task: TaskRecord): Promise<Record<string, string>> {
  if (!['READY', 'DEFINED', 'PAUSED'].includes(task.status)) return {};
  const [daemonRunning, paused] = await settleAll([ctx.orchestrator.daemonRunning(), ctx.orchestrator.isPaused()]);
  const why = await taskWaitingReason(ctx.db, { daemonRunning, paused, now: new Date() }, task);
  return why ? { waiting_reason: why.reason, waiting_code: why.code, ...(why.until && { waiting_until: why.until }) } : {};
}
