import { z } from 'zod';
import { TASK_STATUSES } from '../db/value-sets';
import type { TaskRecord } from '../db/repositories/tasks';
import { CommandError, type CommandContext } from './catalog';
import { requiredText } from './schema';

export const taskId = requiredText('Task id, e.g. swift-fox-042');

/** A task status, case-insensitive on input. */
export const taskStatus = (description: string) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), z.enum(TASK_STATUSES)).describe(description);

export async function requireTask(ctx: CommandContext, id: string): Promise<TaskRecord> {
  const task = await ctx.db.tasks.get(id);
  if (!task) throw new CommandError(`Task '${id}' not found.`);
  return task;
}
