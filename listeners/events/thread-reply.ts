import type { WebClient } from '@slack/web-api';
import type { ListenerRuntime } from '../index';
import { messageTask } from '../../src/commands/task-conversation';
import { esc } from '../../src/slack/blocks/common';
import { firstDelivery } from '../../src/slack/slack-events';
import { mentionedUsers, slackToPlain } from '../../src/slack/slack-text';
import { taskOfThread, type ThreadReply } from '../../src/slack/task-thread-replies';
import { userNamesOf } from '../../src/slack/user-names';

/**
 * A person's reply in a task's thread goes to the task's agent (message_task, as that person):
 * the running session gets it, or a finished task runs again as a follow-up. The reply gets 👀
 * at once; the thread says when the agent has it. Someone who may not steer, or a task that
 * cannot take a message now, gets an ephemeral sentence and the agent gets nothing. A reply in
 * any other thread is dropped here, before anything about it is stored. Answers whether the
 * message was in a task's thread or room (anything else may still be for a channel intake).
 */
export async function steerFromThread(
  runtime: ListenerRuntime,
  client: WebClient,
  reply: ThreadReply,
  eventId: string | undefined,
): Promise<boolean> {
  const taskId = await taskOfThread(runtime, reply.channel, reply.threadTs);
  if (!taskId) return false;
  if (!(await firstDelivery(runtime, eventId))) return true;
  const people = await userNamesOf(runtime).many(client, [reply.userId, ...mentionedUsers(reply.text)]);
  const result = await runtime.handler.executeCommand(
    messageTask,
    { task_id: taskId, text: slackToPlain(reply.text, people), author: people.get(reply.userId) ?? reply.userId },
    { source: 'slack', userId: reply.userId, channelId: reply.channel },
  );
  if ('error' in result) {
    await client.chat.postEphemeral({
      channel: reply.channel,
      user: reply.userId,
      thread_ts: reply.threadTs,
      text: `:no_entry_sign: Your reply did not reach the agent of \`${esc(taskId)}\`. ${esc(result.error)}`,
    });
    return true;
  }
  await client.reactions.add({ channel: reply.channel, timestamp: reply.ts, name: 'eyes' });
  if (result.delivery === 'after_landing') {
    // Nothing happens in the thread until the landing ends: say why to the one who wrote.
    await client.chat.postEphemeral({ channel: reply.channel, user: reply.userId, thread_ts: reply.threadTs, text: esc(result.landing) });
  }
  return true;
}
