import type { AgentRecord } from '../db/repositories/agents';
import type { ProjectRecord } from '../db/repositories/projects';
import type { TaskRecord } from '../db/repositories/tasks';
import type { AgentAdapter, AgentRunOutcome } from '../agents/adapter';
import { redactingAdapter } from '../agents/redacting-adapter';
import { secretRedactor } from '../agents/secret-redaction';
import { buildAgentPrompt } from './agent-prompt';
import { taskAgentRequests } from './agent-requests';
import { ProgressBuffer } from './progress-buffer';
import type { RunHandle, RunnerDeps } from './runner-deps';
import { taskInbox, type FollowUp } from './task-conversation';
import { errorMessage } from '../util/error-message';
import { settleAll } from '../util/settle-all';

/** The adapter that runs this agent's backend, or null when this app has none for it. */
export function adapterFor(deps: Pick<RunnerDeps, 'adapters'>, agent: AgentRecord): AgentAdapter | null {
  return (agent.backend === 'acp' ? deps.adapters.acp : (deps.adapters[agent.type] ?? deps.adapters.claude)) ?? null;
}

/** The prompt of the task's run: the task, where it works, and what the tasks it depends on reported. */
export async function taskPrompt(
  deps: Pick<RunnerDeps, 'db' | 'config'>,
  run: { task: TaskRecord; project: ProjectRecord; workspacePath: string; branch: string | null; defaultBranch: string | null },
): Promise<string> {
  const { db, config } = deps;
  const { task } = run;
  const upstream = await settleAll(
    (await db.tasks.upstream(task.id)).map(async (u) => ({
      id: u.id,
      title: u.title,
      summary: (await db.taskResults.latest(u.id))?.summary ?? null,
    })),
  );
  return buildAgentPrompt({
    ...run,
    upstream,
    mayPlan: config.autoTask.enabled && task.autoTasks && task.planDepth < config.autoTask.maxPlanDepth,
  });
}

/**
 * Runs the agent on the prompt (or on the follow-up, resuming its session) with the task's inbox
 * and its requests to people, its progress batched into events. Never throws: an adapter that
 * throws is a failed run.
 */
export async function invokeAgent(
  deps: RunnerDeps,
  handle: RunHandle,
  run: { adapter: AgentAdapter; task: TaskRecord; agent: AgentRecord; cwd: string; prompt: string; followUp: FollowUp | null },
): Promise<AgentRunOutcome> {
  const { events } = deps;
  const { task, followUp } = run;
  const adapter = redactingAdapter(run.adapter, secretRedactor(deps.config));
  const progress = new ProgressBuffer(deps.progressIntervalMs, (text) =>
    events.emit('task_progress', { projectId: task.projectId, taskId: task.id, agentId: run.agent.id, payload: { text } }),
  );
  handle.phase = 'running';
  let outcome: AgentRunOutcome;
  try {
    outcome = await adapter.run({
      taskId: task.id,
      prompt: followUp?.prompt ?? run.prompt,
      resumeSessionId: followUp?.resumeSessionId,
      ...(followUp && { freshPrompt: followUp.freshPrompt }),
      profile: run.agent.profile,
      inbox: taskInbox(deps, task),
      agentRequests: taskAgentRequests(deps, task, () => handle.controller.abort()),
      cwd: run.cwd,
      signal: handle.controller.signal,
      onProgress: (l) => {
        progress.push(l);
        // Each turn of the agent may have touched files: the radar looks (one git status when nothing moved).
        void handle.radar?.refresh();
      },
    });
  } catch (err) {
    outcome = {
      status: 'failed',
      summary: '',
      errorMessage: errorMessage(err),
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      costUsd: 0,
      sessionId: null,
      resetsAt: null,
    };
  }
  await progress.flush();
  return outcome;
}
