import { CommandError, type CommandContext } from './catalog';
import { actorIsAdmin, isAdminHere } from './admin-check';

/**
 * Who may steer a project's agents and tasks: local callers always; Slack and chat users by the
 * admin rule, or, when the project lists steerers, if they are on that list or named in AQ_ADMINS.
 * Thread replies, message_task, answers to agents, and every command a task button runs use it,
 * so a click may do exactly what the same person's command may.
 */
export async function maySteer(ctx: CommandContext, projectId: string): Promise<boolean> {
  const { actor } = ctx;
  if (actor.source !== 'slack' && actor.source !== 'chat') return true;
  const steerers = await ctx.db.steerers.list(projectId);
  if (steerers.length === 0) return isAdminHere(ctx);
  if (actor.userId !== undefined && steerers.includes(actor.userId)) return true;
  return ctx.config.admins.length > 0 && actorIsAdmin(actor, ctx.config.admins);
}

/** Refuses to `verb` a project the actor may not steer (pause, resume). */
export async function requireSteerProject(ctx: CommandContext, projectId: string, verb: string): Promise<void> {
  if ((await ctx.db.projects.get(projectId)) && !(await maySteer(ctx, projectId))) {
    throw new CommandError(`Only the steerers of project '${projectId}' or admins (AQ_ADMINS) may ${verb} it; ask one of them.`);
  }
}

/**
 * Refuses to `verb` a task of a project the actor may not steer. The rule follows the task's
 * project, never the channel a request came from. A task that does not exist is left to the
 * command, which says so.
 */
export async function requireSteerTask(ctx: CommandContext, taskId: string, verb: string): Promise<void> {
  const task = await ctx.db.tasks.get(taskId);
  if (task && !(await maySteer(ctx, task.projectId))) {
    throw new CommandError(
      `Only the steerers of project '${task.projectId}' or admins (AQ_ADMINS) may ${verb} its tasks; ask one of them.`,
    );
  }
}

/**
 * Who may approve (and so merge) a task: whoever may steer its project; but when the project
 * leaves approvals to requesters (`approvals_by_requester`), only the person who asked for the
 * task or an admin listed in AQ_ADMINS. Local callers (CLI, hooks) are trusted as everywhere.
 */
export async function requireMayApprove(ctx: CommandContext, taskId: string): Promise<void> {
  const task = await ctx.db.tasks.get(taskId);
  if (!task) return;
  const project = await ctx.db.projects.get(task.projectId);
  const { actor } = ctx;
  if (!project?.approvalsByRequester || (actor.source !== 'slack' && actor.source !== 'chat')) {
    await requireSteerTask(ctx, taskId, 'approve');
    return;
  }
  const isRequester = actor.userId !== undefined && actor.userId === task.requestedBy;
  const isListedAdmin = ctx.config.admins.length > 0 && actorIsAdmin(actor, ctx.config.admins);
  if (!isRequester && !isListedAdmin) {
    const who = task.requestedBy ? `the person who asked for it (Slack user ${task.requestedBy})` : 'the person who asked for it';
    throw new CommandError(
      `Project '${task.projectId}' leaves approvals to each task's requester and the admins: only ${who} or an admin (AQ_ADMINS) may approve this task.`,
    );
  }
}
