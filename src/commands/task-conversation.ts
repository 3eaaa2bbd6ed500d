import { z } from 'zod';
import { sendTaskMessage } from '../orchestrator/task-conversation';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { CommandError, defineCommand } from './catalog';
import { maySteer } from './steer-check';
import { requireProject } from './projects';
import { requiredText } from './schema';
import { taskId } from './task-common';
import { taskOperation } from './task-lifecycle';

/** Longest message we hand an agent; a thread reply is far shorter. */
const MESSAGE_LIMIT = 20_000;

export const messageTask = defineCommand({
  name: 'message_task',
  group: 'tasks',
  kind: 'change',
  description:
    "Send a message to a task's agent. A running task gets it in its live session (while its agent waits for an answer to a question, the message is the answer); a COMPLETED, FAILED, BLOCKED or AWAITING_APPROVAL task runs again as a follow-up that continues the same agent session on the same branch (an open PR is updated); a task approved and queued in its merge train lands first, then runs the follow-up. Only the project's steerers (set_project_steerers) or admins may.",
  input: () =>
    z.object({
      task_id: taskId,
      text: requiredText('What to tell the agent').pipe(
        z.string().max(MESSAGE_LIMIT, `A message to an agent is at most ${MESSAGE_LIMIT} characters.`),
      ),
      author: z.string().trim().max(200).optional().describe('Who wrote it, as the agent should see it (e.g. a Slack display name)'),
    }),
  modelAccess: 'confirm',
  async run({ task_id, text, author }, ctx) {
    const target = await ctx.db.tasks.get(task_id);
    if (target && !(await maySteer(ctx, target.projectId))) {
      throw new CommandError(
        `Only the project's steerers or admins (AQ_ADMINS) may steer its agents; ask one of them to send this message.`,
      );
    }
    const machine = new TaskStateMachine(ctx.db);
    const sent = await taskOperation(
      sendTaskMessage({ db: ctx.db, events: ctx.events, machine }, { taskId: task_id, text, author: author ?? ctx.actor.userId ?? null }),
    );
    if (sent.delivery === 'answer') {
      return {
        task_id,
        title: sent.task.title,
        delivery: 'answer' as const,
        request_id: sent.requestId,
        status: sent.complete ? ('IN_PROGRESS' as const) : ('WAITING_INPUT' as const),
      };
    }
    if (sent.delivery === 'live') {
      return {
        task_id,
        title: sent.task.title,
        delivery: 'live' as const,
        message_id: sent.messageId,
        status: sent.task.status === 'WAITING_INPUT' ? ('WAITING_INPUT' as const) : ('IN_PROGRESS' as const),
      };
    }
    if (sent.delivery === 'after_landing') {
      return {
        task_id,
        title: sent.task.title,
        delivery: 'after_landing' as const,
        message_id: sent.messageId,
        status: 'AWAITING_APPROVAL' as const,
        landing: `It lands first (#${sent.place} in the merge train); your message then runs as its follow-up, on top of the landed work.`,
      };
    }
    return {
      task_id,
      title: sent.task.title,
      delivery: 'follow_up' as const,
      message_id: sent.messageId,
      status: 'READY' as const,
      previous_status: sent.previousStatus,
      resumes_session: sent.resumesSession,
    };
  },
});

export const setProjectSteerers = defineCommand({
  name: 'set_project_steerers',
  group: 'projects',
  kind: 'admin',
  description:
    "Set who (Slack user ids) may message a project's agents and queue follow-ups, besides the admins; answers the list now in force. An empty list leaves it to the admin rule.",
  input: () =>
    z.object({
      project_id: requiredText('Project id'),
      user_ids: z
        .array(
          z
            .string()
            .trim()
            .regex(/^[UW][A-Z0-9]+$/, 'Each steerer is a Slack user id such as U012AB3CD.'),
        )
        .max(200)
        .describe('Slack user ids, e.g. ["U012AB3CD"]'),
    }),
  async run({ project_id, user_ids }, ctx) {
    await requireProject(ctx, project_id);
    await ctx.db.steerers.set(project_id, user_ids);
    return { project_id, steerers: await ctx.db.steerers.list(project_id) };
  },
});

export const taskConversationCommands = [messageTask, setProjectSteerers];
