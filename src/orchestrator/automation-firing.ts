import type { Database } from '../db/database';
import type { AutomationRecord, AutomationRunOutcome } from '../db/repositories/automations';
import { overBudget } from './budgets';
import { refused, type CommandPort, type RequestedFor, type TaskRequest } from './command-port';
import type { EventLog } from './events';
import { renderHookPrompt } from './hook-template';
import { cutWhole } from '../util/whole-characters';

export interface FiringDeps {
  db: Database;
  events: EventLog;
  /** Creates the task as the automation, for whom the firing says (an intake's reporter). */
  commands: Pick<CommandPort, 'createTask'>;
  now: () => Date;
}

export interface Firing {
  /** What fired it: schedule, manual, webhook, discovery, intake. */
  firedBy: string;
  /** The data its template's `{{event.…}}` placeholders read (a webhook's body, a discovered item, a message). */
  item?: Record<string, unknown> | null;
  /** A key seen once per automation: a second firing with it creates nothing. */
  dedupKey?: string | null;
  /** Overrides of the template (an intake's triaged title and description). */
  task?: { title?: string; description?: string; priority?: number };
  /** The person the task is for and the thread it was asked in. */
  actor?: RequestedFor;
  /** An intake proposal's logged run, already taken (and counted by the rate limit): it becomes this firing's run. */
  proposalRunId?: number;
}

export type FiringResult =
  | { outcome: 'created'; taskId: string; runId: number }
  | { outcome: 'duplicate'; taskId: string | null; reason: string }
  | { outcome: Exclude<AutomationRunOutcome, 'created' | 'proposed' | 'linked'>; reason: string; runId: number };

const HOUR_MS = 3600_000;
const OPEN_STATUSES = new Set(['DEFINED', 'READY', 'ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT', 'PAUSED', 'AWAITING_APPROVAL', 'BLOCKED']);
export const DEFAULT_MAX_FAILURES = 3;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Pauses an automation and says so once (the notifier posts it in the project's channel). */
export async function pauseAutomation(
  deps: Pick<FiringDeps, 'db' | 'events' | 'now'>,
  a: AutomationRecord,
  reason: string,
): Promise<boolean> {
  if (!(await deps.db.automations.pause(a.id, reason, deps.now().getTime()))) return false;
  await deps.events.emit('automation_paused', {
    projectId: a.projectId,
    payload: { automation_id: a.id, name: a.name, kind: a.kind, reason },
  });
  return true;
}

/** Counts a failure in a row and pauses the automation when it reaches its limit. */
export async function countFailure(deps: Pick<FiringDeps, 'db' | 'events' | 'now'>, a: AutomationRecord, what: string): Promise<void> {
  const failures = await deps.db.automations.addFailure(a.id);
  const limit = Number(a.settings.max_failures ?? DEFAULT_MAX_FAILURES);
  if (limit > 0 && failures >= limit) {
    await pauseAutomation(
      deps,
      a,
      `It failed ${failures} times in a row (last: ${what}). Fix the cause, then resume it with resume_automation ${a.id}.`,
    );
  }
}

async function skip(deps: FiringDeps, a: AutomationRecord, firing: Firing, runId: number, reason: string): Promise<FiringResult> {
  await deps.db.automations.finishRun(runId, { outcome: 'skipped', reason, releaseKey: true });
  await deps.events.emit('automation_skipped', {
    projectId: a.projectId,
    payload: { automation_id: a.id, name: a.name, kind: a.kind, fired_by: firing.firedBy, reason },
  });
  return { outcome: 'skipped', reason, runId };
}

/**
 * One firing of an automation: logged, then checked against its dedup key, rate limit, the
 * project's budget and (schedules) its previous run's task, then a task from its template.
 */
export async function fireAutomation(deps: FiringDeps, a: AutomationRecord, firing: Firing): Promise<FiringResult> {
  const now = deps.now().getTime();
  const runId =
    firing.proposalRunId ??
    (await deps.db.automations.recordRun({
      automationId: a.id,
      at: now,
      firedBy: firing.firedBy,
      outcome: 'failed',
      reason: 'Still running (or interrupted).',
      taskId: null,
      dedupKey: firing.dedupKey ?? null,
    }));
  if (runId === null) {
    const earlier = await deps.db.automations.runByKey(a.id, firing.dedupKey ?? '');
    const reason = `Already handled ${firing.dedupKey}${earlier?.taskId ? ` (task ${earlier.taskId})` : ''}.`;
    await deps.db.automations.recordRun({
      automationId: a.id,
      at: now,
      firedBy: firing.firedBy,
      outcome: 'skipped',
      reason,
      taskId: null,
      dedupKey: null,
    });
    await deps.events.emit('automation_skipped', {
      projectId: a.projectId,
      payload: { automation_id: a.id, name: a.name, kind: a.kind, fired_by: firing.firedBy, reason },
    });
    return { outcome: 'duplicate', taskId: earlier?.taskId ?? null, reason };
  }

  const slot = await deps.db.automations.takeTaskSlot(a.id, runId, now - HOUR_MS, a.rateLimitPerHour);
  if (!slot.taken) {
    return skip(
      deps,
      a,
      firing,
      runId,
      `Rate limit: it already created ${slot.created} task(s) in the last hour (limit ${a.rateLimitPerHour}).`,
    );
  }
  const spent = await overBudget(deps.db, a.projectId, deps.now());
  if (spent) return skip(deps, a, firing, runId, spent);

  let dependsOn: string[] = [];
  if (a.kind === 'schedule' && a.lastTaskId && firing.firedBy !== 'discovery') {
    const status = (await deps.db.tasks.statusesOf([a.lastTaskId])).get(a.lastTaskId);
    if (status && OPEN_STATUSES.has(status)) {
      if (a.settings.overlap !== 'queue') {
        return skip(deps, a, firing, runId, `Its previous run's task ${a.lastTaskId} is still open (${status}).`);
      }
      dependsOn = [a.lastTaskId];
    }
  }

  const item = firing.item ?? null;
  const template = a.template;
  // The template was checked when the automation was saved: a priority there is a number.
  const priority = firing.task?.priority ?? (typeof template.priority === 'number' ? template.priority : undefined);
  const title = firing.task?.title ?? cutWhole(renderHookPrompt(text(template.title), [], item), 200);
  const description = firing.task?.description ?? renderHookPrompt(text(template.description), [], item);
  const task: TaskRequest = {
    project_id: a.projectId,
    title: title.trim() ? title : a.name,
    description: description.trim() ? description : `Started by automation ${a.name}.`,
    ...(priority !== undefined && { priority }),
    ...(template.requires_approval === true && { requires_approval: true }),
    ...(dependsOn.length > 0 && { depends_on: dependsOn }),
  };
  const result = await deps.commands.createTask(task, firing.actor);
  if (refused(result)) {
    const reason = `Could not create the task: ${result.error}`;
    await deps.db.automations.finishRun(runId, { outcome: 'failed', reason, releaseKey: true });
    await countFailure(deps, a, reason);
    return { outcome: 'failed', reason, runId };
  }
  const taskId = result.created;
  await deps.db.automations.finishRun(runId, { outcome: 'created', taskId });
  await deps.db.automations.update(a.id, { lastTaskId: taskId }, now);
  await deps.events.emit('automation_fired', {
    projectId: a.projectId,
    taskId,
    payload: { automation_id: a.id, name: a.name, kind: a.kind, fired_by: firing.firedBy, task_id: taskId, title: task.title },
  });
  return { outcome: 'created', taskId, runId };
}

/**
 * Counts how the tasks automations created ended: a failed task is a failure in a row (pausing
 * at the limit), a completed one clears them. Each task is counted once across the fleet.
 */
export async function settleTaskOutcomes(deps: Pick<FiringDeps, 'db' | 'events' | 'now'>): Promise<void> {
  for (const ended of await deps.db.automations.endedTasks()) {
    if (!(await deps.db.automations.settleTaskOutcome(ended.runId, ended.status))) continue;
    const a = await deps.db.automations.get(ended.automationId);
    if (!a) continue;
    if (ended.status === 'FAILED') await countFailure(deps, a, `task ${ended.taskId} failed`);
    else if (ended.status === 'COMPLETED') await deps.db.automations.clearFailures(a.id);
  }
}
