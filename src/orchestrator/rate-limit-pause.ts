import type { TaskRecord } from '../db/repositories/tasks';
import { QUOTA_PAUSE_PREFIX } from '../db/repositories/scheduling';
import type { AgentRunOutcome } from '../agents/adapter';
import { parseResetTime, resumeTime } from '../agents/rate-limits';
import { systemClock } from '../util/clock';
import type { RunnerDeps } from './runner-deps';

/** A run the API refused for its limits: PAUSED until the limit resets (or a backoff), and said why. */
export async function pauseForRateLimit(deps: RunnerDeps, task: TaskRecord, outcome: AgentRunOutcome): Promise<void> {
  const { db, events, machine } = deps;
  const pauses = await db.taskRuns.recentRateLimitPauses(task.id);
  const now = (deps.clock ?? systemClock).now();
  const until = resumeTime(
    { message: outcome.errorMessage, resetsAt: outcome.resetsAt, consecutivePauses: pauses - 1 },
    now,
    deps.rateLimitBackoffMs,
  );
  const detail = outcome.errorMessage ?? 'the API refused the run';
  // A limit that names its reset is the account's quota: the scheduler holds new launches until then.
  const named = (outcome.resetsAt !== null && outcome.resetsAt.getTime() > now.getTime()) || parseResetTime(detail, now) !== null;
  const at = `${until.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  const reason = named
    ? `${QUOTA_PAUSE_PREFIX} ${at}, when the API says it resets; the task resumes then by itself. The API said: ${detail}`
    : `Rate limit with no reset time given; the task tries again at ${at}. The API said: ${detail}`;
  const moved = await machine.fire(
    task.id,
    'RATE_LIMITED',
    { resumeAfter: until, pauseReason: reason, assignedAgent: null },
    { from: ['IN_PROGRESS'] },
  );
  if (moved.ok) {
    await events.emit('task_paused', {
      projectId: task.projectId,
      taskId: task.id,
      payload: { title: task.title, reason, resume_after: until.toISOString() },
    });
  }
}
