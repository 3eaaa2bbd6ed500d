import type { AppConfig } from '../config';
import type { ChatProvider } from '../model/provider';
import type { Database } from '../db/database';
import { DatabaseContentionError } from '../db/retrying-transaction';
import type { TaskRecord } from '../db/repositories/tasks';
import { totalAgentTokens, ZERO_USAGE, type AgentAdapter, type AgentRunOutcome } from '../agents/adapter';
import { agentBackendKey, servesBackend } from '../agents/backends';
import { classifyError } from '../agents/errors';
import { redactingAdapter } from '../agents/redacting-adapter';
import { secretRedactor } from '../agents/secret-redaction';
import { branchNameForTask } from '../git/branch-names';
import { buildAgentPrompt } from './agent-prompt';
import { createTasksFromPlan } from './auto-task';
import { completeRun, reportBlocked, type TaskGit } from './completion';
import type { EventLog } from './events';
import { parseResetTime, resumeTime } from '../agents/rate-limits';
import { QUOTA_PAUSE_PREFIX } from '../db/repositories/scheduling';
import type { TaskStateMachine } from './state-machine';
import { queuePendingFollowUp, taskInbox, takeFollowUp } from './task-conversation';
import { taskAgentRequests } from './agent-requests';
import { systemClock, type Clock } from '../util/clock';
import { GitManager } from '../git/git-manager';
import { TaskRadar } from './conflict-radar';

export interface RunnerDeps {
  db: Database;
  events: EventLog;
  config: AppConfig;
  machine: TaskStateMachine;
  git: TaskGit;
  adapters: Record<string, AgentAdapter>;
  chatProvider?: ChatProvider | null;
  progressIntervalMs: number;
  rateLimitBackoffMs: number;
  log: (message: string) => void;
  /** The time of backoffs and of how long a request waits for a person (default: the system clock). */
  clock?: Clock;
  /** Git for the conflict radar's reads (default: a GitManager of its own). */
  radarGit?: GitManager;
}

export interface RunHandle {
  taskId: string;
  agentId: string;
  workspaceId: string;
  /** The run record (task_runs.id) the launch claimed; the deps' machine is fenced on it. */
  runId?: string;
  controller: AbortController;
  /** 'running' while the agent works; 'finishing' while the runner itself moves the task on. */
  phase: 'starting' | 'running' | 'finishing';
  done: Promise<void>;
  /** The run's conflict radar, once its workspace is on the task's branch (null outside git). */
  radar?: TaskRadar | null;
}

/** Batches progress lines into at most one `task_progress` event per interval. */
export class ProgressBuffer {
  private lines: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (text: string) => Promise<unknown>,
  ) {}

  push(line: string): void {
    this.lines.push(line);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.intervalMs);
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.lines.length === 0) return;
    const lines = this.lines.splice(0);
    const shown = lines.slice(-15);
    const text = (lines.length > shown.length ? [`… ${lines.length - shown.length} earlier lines`, ...shown] : shown).join('\n');
    await this.send(text.length > 3000 ? `${text.slice(0, 2999)}…` : text).catch(() => undefined);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One run of one task, from IN_PROGRESS to its next status. Never throws. */
export async function runTask(deps: RunnerDeps, handle: RunHandle): Promise<void> {
  const { db, events, machine, log } = deps;
  const { taskId, agentId } = handle;
  try {
    const [task, agent, workspace] = await Promise.all([
      db.tasks.get(taskId),
      db.agents.get(agentId),
      db.workspaces.get(handle.workspaceId),
    ]);
    const project = task ? await db.projects.get(task.projectId) : null;
    if (!task || !agent || !workspace || !project) {
      log(`Launch of ${taskId} abandoned: its task, agent, workspace or project is gone.`);
      await machine.fire(taskId, 'LAUNCH_FAILED', { assignedAgent: null }, { from: ['ASSIGNED'] });
      return;
    }
    // The scheduler gives a task only to an agent of its backend; a claim that raced a change of
    // agent goes back to the queue rather than move a session to another vendor.
    if (task.backend && !servesBackend(agent, task.backend)) {
      log(`Launch of ${taskId} on ${agentId} undone: the task runs on ${task.backend}, the agent on ${agentBackendKey(agent)}.`);
      await machine.fire(taskId, 'LAUNCH_FAILED', { assignedAgent: null }, { from: ['ASSIGNED'] });
      return;
    }
    const started = await machine.fire(taskId, 'AGENT_STARTED', { startedAt: new Date() }, { from: ['ASSIGNED'] });
    if (!started.ok) return;

    const { branch, defaultBranch } = await prepareBranch(deps, task, workspace.path);
    if (branch && branch !== task.branchName) await db.tasks.update(taskId, { branchName: branch });
    const current: TaskRecord = {
      ...task,
      status: 'IN_PROGRESS',
      branchName: branch ?? task.branchName,
      workspaceId: workspace.id,
      assignedAgent: agentId,
    };
    await events.emit('task_started', {
      projectId: task.projectId,
      taskId,
      agentId,
      payload: { title: task.title, agent_id: agentId, agent_name: agent.name, branch, workspace_path: workspace.path },
    });

    handle.radar = branch
      ? new TaskRadar({ db, events, git: deps.radarGit ?? new GitManager(), log }, task, workspace, defaultBranch)
      : null;

    const chosen = agent.backend === 'acp' ? deps.adapters.acp : (deps.adapters[agent.type] ?? deps.adapters.claude);
    if (!chosen) {
      await failRun(deps, current, `This app cannot run ${agent.backend} agents such as ${agent.name}: give the task to another agent.`);
      return;
    }
    // A task keeps the backend of its first run: its follow-ups resume that vendor's session. A
    // request for any ACP agent becomes the profile that took it.
    if (!task.backend || task.backend === 'acp') await db.tasks.update(taskId, { backend: agentBackendKey(agent) });
    const adapter = redactingAdapter(chosen, secretRedactor(deps.config));
    const upstream = await Promise.all(
      (await db.tasks.upstream(taskId)).map(async (u) => ({
        id: u.id,
        title: u.title,
        summary: (await db.taskResults.latest(u.id))?.summary ?? null,
      })),
    );
    const prompt = buildAgentPrompt({
      task,
      project,
      workspacePath: workspace.path,
      branch,
      defaultBranch,
      upstream,
      mayPlan: deps.config.autoTask.enabled && task.autoTasks && task.planDepth < deps.config.autoTask.maxPlanDepth,
    });
    const followUp = await takeFollowUp(deps, current, prompt);
    const progress = new ProgressBuffer(deps.progressIntervalMs, (text) =>
      events.emit('task_progress', { projectId: task.projectId, taskId, agentId, payload: { text } }),
    );
    handle.phase = 'running';
    const runStartedAt = new Date();
    let outcome: AgentRunOutcome;
    try {
      outcome = await adapter.run({
        taskId,
        prompt: followUp?.prompt ?? prompt,
        resumeSessionId: followUp?.resumeSessionId,
        ...(followUp && { freshPrompt: followUp.freshPrompt }),
        profile: agent.profile,
        inbox: taskInbox(deps, current),
        agentRequests: taskAgentRequests(deps, current, () => handle.controller.abort()),
        cwd: workspace.path,
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
        errorMessage: errorText(err),
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
        costUsd: 0,
        sessionId: null,
        resetsAt: null,
      };
    }
    await progress.flush();
    await handle.radar?.refresh();
    handle.phase = 'finishing';
    await recordRun(deps, current, outcome);
    await settle(deps, current, outcome, {
      workspacePath: workspace.path,
      branch,
      defaultBranch,
      runStartedAt,
      aborted: handle.controller.signal.aborted,
    });
    // A stopped run stays stopped; its unread messages reach the agent when it runs again.
    if (!handle.controller.signal.aborted) await queuePendingFollowUp(deps, taskId);
  } catch (err) {
    // A write that lost its race through every retry says so in one line; anything else is a bug worth its stack.
    const detail = err instanceof DatabaseContentionError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    log(`Run of ${taskId} failed unexpectedly: ${detail}`);
    const task = await db.tasks.get(taskId).catch(() => null);
    if (task?.status === 'IN_PROGRESS') await failRun(deps, task, `Internal error: ${errorText(err)}`).catch(() => undefined);
  } finally {
    await db.taskRuns.finishRun(taskId, agentId, handle.workspaceId).catch((err) => log(`Cleanup of ${taskId} failed: ${errorText(err)}`));
  }
}

/** The task's branch, checked out. Plan steps continue on their parent's branch. */
async function prepareBranch(
  deps: RunnerDeps,
  task: TaskRecord,
  path: string,
): Promise<{ branch: string | null; defaultBranch: string | null }> {
  if (!(await deps.git.isRepo(path).catch(() => false))) return { branch: null, defaultBranch: null };
  const defaultBranch = await deps.git.detectDefaultBranch(path);
  let branch = task.branchName;
  let reuse = !!branch;
  if (task.isPlanSubtask && task.parentTaskId) {
    const parent = await deps.db.tasks.get(task.parentTaskId);
    if (parent?.branchName) {
      branch = parent.branchName;
      reuse = true;
    }
  }
  branch ??= branchNameForTask(task.id, task.title);
  try {
    await deps.git.prepareTaskBranch(path, branch, { defaultBranch, reuse });
  } catch (err) {
    // The agent can still work; the branch problem shows up again at merge time.
    deps.log(`Preparing branch ${branch} for ${task.id} failed: ${errorText(err)}`);
  }
  return { branch, defaultBranch };
}

const RESULT_NAMES: Record<AgentRunOutcome['status'], string> = {
  completed: 'COMPLETED',
  failed: 'FAILED',
  rate_limited: 'PAUSED_RATE_LIMIT',
  aborted: 'STOPPED',
};

async function recordRun(deps: RunnerDeps, task: TaskRecord, outcome: AgentRunOutcome): Promise<void> {
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

async function settle(
  deps: RunnerDeps,
  task: TaskRecord,
  outcome: AgentRunOutcome,
  ctx: { workspacePath: string; branch: string | null; defaultBranch: string | null; runStartedAt: Date; aborted: boolean },
): Promise<void> {
  const { db, events, machine, log } = deps;
  if (outcome.status === 'aborted' || ctx.aborted) {
    // Stopped by a person (the task already left IN_PROGRESS) or by shutdown (back to the queue),
    // perhaps while its agent waited for an answer.
    const status = (await db.tasks.get(task.id))?.status;
    if (status !== 'IN_PROGRESS' && status !== 'WAITING_INPUT') return;
    const back = await machine.fire(task.id, 'RECOVERY', { assignedAgent: null }, { from: ['IN_PROGRESS', 'WAITING_INPUT'] });
    if (back.ok) {
      await events.emit('task_retrying', {
        projectId: task.projectId,
        taskId: task.id,
        payload: {
          title: task.title,
          reason: 'the daemon stopped during the run',
          retry_count: task.retryCount,
          max_retries: task.maxRetries,
        },
      });
    }
    return;
  }
  if (outcome.status === 'rate_limited') {
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
    return;
  }
  if (outcome.status === 'failed') {
    await failRun(deps, task, outcome.errorMessage ?? 'The agent failed without a message.');
    return;
  }
  let subtasks: Array<{ id: string; title: string }> = [];
  if (ctx.branch) {
    try {
      await deps.git.commitAll(ctx.workspacePath, `agent: ${task.title}\n\nTask-Id: ${task.id}`);
    } catch (err) {
      log(`Commit after ${task.id} failed: ${errorText(err)}`);
    }
  }
  try {
    const plan = await createTasksFromPlan(
      { db, events, config: deps.config, chatProvider: deps.chatProvider, commitAll: (p, m) => deps.git.commitAll(p, m), log },
      task,
      ctx.workspacePath,
      ctx.runStartedAt,
    );
    if (plan.kind === 'created') subtasks = plan.tasks;
  } catch (err) {
    log(`Plan handling after ${task.id} failed: ${errorText(err)}`);
  }
  await completeRun(
    { config: deps.config, db, events, machine, git: deps.git, log },
    {
      task,
      workspacePath: ctx.workspacePath,
      branch: ctx.branch,
      defaultBranch: ctx.defaultBranch,
      summary: outcome.summary,
      tokens: totalAgentTokens(outcome.usage),
      costUsd: outcome.costUsd ?? 0,
      subtasks,
    },
  );
}

/** A failed run: retried while retries remain, then BLOCKED with the stranded chain reported. */
export async function failRun(deps: RunnerDeps, task: TaskRecord, error: string): Promise<void> {
  const { machine, events } = deps;
  const retryCount = task.retryCount + 1;
  const failed = await machine.fire(task.id, 'AGENT_FAILED', { retryCount }, { from: ['IN_PROGRESS'] });
  if (!failed.ok) return;
  const { errorType, suggestedFix } = classifyError(error);
  const willRetry = retryCount < task.maxRetries;
  await events.emit('task_failed', {
    projectId: task.projectId,
    taskId: task.id,
    agentId: task.assignedAgent,
    payload: {
      title: task.title,
      error: error.slice(0, 2000),
      error_type: errorType,
      suggested_fix: suggestedFix,
      retry_count: retryCount,
      max_retries: task.maxRetries,
      will_retry: willRetry,
    },
  });
  if (willRetry) {
    const moved = await machine.fire(task.id, 'RETRY', { assignedAgent: null }, { from: ['FAILED'] });
    if (moved.ok) {
      await events.emit('task_retrying', {
        projectId: task.projectId,
        taskId: task.id,
        payload: {
          title: task.title,
          reason: `${errorType}: ${error.slice(0, 300)}`,
          retry_count: retryCount,
          max_retries: task.maxRetries,
        },
      });
    }
    return;
  }
  const blocked = await machine.fire(task.id, 'MAX_RETRIES', { assignedAgent: null }, { from: ['FAILED'] });
  if (blocked.ok)
    await reportBlocked(
      deps.db,
      events,
      task,
      `Failed ${retryCount} of ${task.maxRetries} attempts. Last error (${errorType}): ${error.slice(0, 300)}`,
    );
}
