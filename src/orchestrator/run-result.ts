import type { TaskRecord } from '../db/repositories/tasks';
import { totalAgentTokens, ZERO_USAGE, type AgentRunOutcome } from '../agents/adapter';
import type { RunnerDeps } from './runner-deps';

const RESULT_NAMES: Record<AgentRunOutcome['status'], string> = {
  completed: 'COMPLETED',
  failed: 'FAILED',
  rate_limited: 'PAUSED_RATE_LIMIT',
  aborted: 'STOPPED',
};

/** Stores what the run reported (its result row, with the session a follow-up resumes) and what it cost. */
export async function recordRun(deps: Pick<RunnerDeps, 'db'>, task: TaskRecord, outcome: AgentRunOutcome): Promise<void> {
  const tokens = totalAgentTokens(outcome.usage);
  await deps.db.taskResults.add({
    taskId: task.id,
    agentId: task.assignedAgent,
    result: RESULT_NAMES[outcome.status],
    summary: outcome.summary || null,
    errorMessage: outcome.errorMessage,
    filesChanged: null,
    tokensUsed: outcome.usage ? tokens : null,
    costUsd: outcome.costUsd,
    sessionId: outcome.sessionId,
  });
  if (tokens > 0 || (outcome.costUsd ?? 0) > 0) {
    await deps.db.tokenUsage.record({
      projectId: task.projectId,
      taskId: task.id,
      agentId: task.assignedAgent,
      source: 'agent',
      ...(outcome.usage ?? ZERO_USAGE),
      costUsd: outcome.costUsd ?? 0,
    });
  }
}
