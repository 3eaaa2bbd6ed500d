import { z } from 'zod';
import { sendTaskMessage } from '../orchestrator/task-conversation';
import { TaskStateMachine } from '../orchestrator/state-machine';
import { CommandError, defineCommand } from './catalog';
import { isAdminHere } from './admin-check';
import { requiredText } from './schema';
import { taskId } from './task-common';
import { taskOperation } from './task-lifecycle';

/** Longest message we hand an agent; a thread reply is far shorter. */
const MESSAGE_LIMIT = 20_000;

export const messageTask = defineCommand({
  name: 'message_task',
  group: 'tasks',
  description:
    "Send a message to a task's agent. A running task gets it in its live session; a COMPLETED, FAILED, BLOCKED or AWAITING_APPROVAL task runs again as a follow-up that continues the same agent session on the same branch (an open PR is updated). Admins only when AQ_ADMINS is set.",
  input: z.object({
    task_id: taskId,
    text: requiredText('What to tell the agent').pipe(z.string().max(MESSAGE_LIMIT, `A message to an agent is at most ${MESSAGE_LIMIT} characters.`)),
    author: z.string().trim().max(200).optional().describe('Who wrote it, as the agent should see it (e.g. a Slack display name)'),
  }),
  modelAccess: 'confirm',
  async run({ task_id, text, author }, ctx) {
    // Steering an agent is the admin rule's (the per-project list of steerers is not built yet).
    if (!isAdminHere(ctx)) {
      throw new CommandError('Only admins (AQ_ADMINS) may steer an agent; ask one of them to send this message.');
    }
    const machine = new TaskStateMachine(ctx.db);
    const sent = await taskOperation(sendTaskMessage({ db: ctx.db, events: ctx.events, machine }, { taskId: task_id, text, author: author ?? ctx.actor.userId ?? null }));
    if (sent.delivery === 'live') {
      return { task_id, title: sent.task.title, delivery: 'live' as const, message_id: sent.messageId, status: 'IN_PROGRESS' as const };
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

export const taskConversationCommands = [messageTask];
