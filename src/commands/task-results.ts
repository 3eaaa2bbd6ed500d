import { z } from 'zod';
import { classifyError } from '../agents/errors';
import { CommandError, defineCommand } from './catalog';
import { requireTask, taskId } from './task-common';

const NO_RESULT_MESSAGE = 'No result recorded yet for this task.';
const ERROR_MESSAGE_LIMIT = 2000;
const SUMMARY_LIMIT = 1000;

function truncate(text: string | null, limit: number): string | null {
  if (text === null) return null;
  const chars = Array.from(text);
  return chars.length > limit ? `${chars.slice(0, limit).join('')}…` : text;
}

export const getTaskResult = defineCommand({
  name: 'get_task_result',
  group: 'tasks',
  kind: 'read',
  description: 'The latest result an agent recorded for a task: outcome, summary, error, tokens and cost.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const r = await ctx.db.taskResults.latest(task_id);
    if (!r) throw new CommandError(`No result recorded for task '${task_id}'.`);
    return {
      task_id: r.taskId,
      agent_id: r.agentId,
      result: r.result,
      summary: r.summary,
      error_message: r.errorMessage,
      files_changed: r.filesChanged ?? [],
      tokens_used: r.tokensUsed,
      cost_usd: r.costUsd,
      created_at: r.createdAt.toISOString(),
    };
  },
});

export const getAgentError = defineCommand({
  name: 'get_agent_error',
  group: 'tasks',
  kind: 'read',
  description: 'Why a task failed: the error, its kind, and a suggested fix.',
  input: () => z.object({ task_id: taskId }),
  async run({ task_id }, ctx) {
    const task = await requireTask(ctx, task_id);
    const base = { task_id, title: task.title, status: task.status, retries: `${task.retryCount} / ${task.maxRetries}` };
    const r = await ctx.db.taskResults.latest(task_id);
    if (!r) return { ...base, message: NO_RESULT_MESSAGE };
    const { errorType, suggestedFix } = classifyError(r.errorMessage);
    return {
      ...base,
      result: r.result,
      error_type: errorType,
      error_message: truncate(r.errorMessage, ERROR_MESSAGE_LIMIT),
      suggested_fix: suggestedFix,
      ...(r.summary && { agent_summary: truncate(r.summary, SUMMARY_LIMIT) }),
    };
  },
});

export const taskResultCommands = [getTaskResult, getAgentError];
