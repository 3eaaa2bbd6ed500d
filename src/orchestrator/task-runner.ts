import { DatabaseContentionError } from '../db/retrying-transaction';
import type { TaskRecord } from '../db/repositories/tasks';
import { agentBackendKey, servesBackend } from '../agents/backends';
import { GitManager } from '../git/git-manager';
import { adapterFor, invokeAgent, taskPrompt } from './agent-invocation';
import { TaskRadar } from './conflict-radar';
import { prepareBranch } from './run-branch';
import { failRun } from './run-failure';
import { recordRun } from './run-result';
import { settle } from './run-settlement';
import type { RunHandle, RunnerDeps } from './runner-deps';
import { queuePendingFollowUp, takeFollowUp } from './task-conversation';
import { errorMessage } from '../util/error-message';
import { settleAll } from '../util/settle-all';

export type { RunHandle, RunnerDeps } from './runner-deps';

/** One run of one task, from IN_PROGRESS to its next status. Never throws. */
export async function runTask(deps: RunnerDeps, handle: RunHandle): Promise<void> {
  const { db, events, machine, log } = deps;
  const { taskId, agentId } = handle;
  try {
    const [task, agent, workspace] = await settleAll([db.tasks.get(taskId), db.agents.get(agentId), db.workspaces.get(handle.workspaceId)]);
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

    const adapter = adapterFor(deps, agent);
    if (!adapter) {
      await failRun(deps, current, `This app cannot run ${agent.backend} agents such as ${agent.name}: give the task to another agent.`);
      return;
    }
    // A task keeps the backend of its first run: its follow-ups resume that vendor's session. A
    // request for any ACP agent becomes the profile that took it.
    if (!task.backend || task.backend === 'acp') await db.tasks.update(taskId, { backend: agentBackendKey(agent) });
    const prompt = await taskPrompt(deps, { task, project, workspacePath: workspace.path, branch, defaultBranch });
    const followUp = await takeFollowUp(deps, current, prompt);
    const runStartedAt = new Date();
    const outcome = await invokeAgent(deps, handle, { adapter, task: current, agent, cwd: workspace.path, prompt, followUp });
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
    if (task?.status === 'IN_PROGRESS') await failRun(deps, task, `Internal error: ${errorMessage(err)}`).catch(() => undefined);
  } finally {
    await db.taskRuns
      .finishRun(taskId, agentId, handle.workspaceId)
      .catch((err) => log(`Cleanup of ${taskId} failed: ${errorMessage(err)}`));
  }
}
