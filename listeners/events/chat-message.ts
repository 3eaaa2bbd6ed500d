import type { WebClient } from '@slack/web-api';
import { getTask } from '../../src/commands/tasks';
import type { ListenerRuntime } from '../index';
import type { KnownBlock } from '@slack/types';
import type { ChatReply } from '../../src/chat/service';
import { finishedReply } from '../../src/slack/chat-replies';
import { esc } from '../../src/slack/blocks/common';
import type { AiSurfaces } from '../../src/slack/ai-surfaces';
import { ReplySurface } from '../../src/slack/ai-surfaces/reply-surface';
import { renderResult } from '../../src/slack/blocks/render';
import { firstDelivery } from '../../src/slack/slack-events';
import { chatOrigin } from '../../src/slack/chat-origin';
import { userNamesOf } from '../../src/slack/user-names';

export interface IncomingChat {
  channel: string;
  /** The thread to answer in: the message's thread, or the message itself. */
  threadTs: string;
  text: string;
  userId: string;
  /** The workspace, so a streamed reply can be addressed outside DMs. */
  teamId?: string;
  eventId?: string;
  /** The message itself and whether it was posted inside a thread (whose earlier messages the agent then reads). */
  messageTs?: string;
  inThread?: boolean;
  botUserId?: string;
  botId?: string;
}

const NO_CHAT = 'Chat needs a model: set ANTHROPIC_API_KEY and restart. Meanwhile, `/aq help` lists the commands you can run directly.';

/** Strips the bot's own mention from a message. */
export function withoutMentions(text: string): string {
  return text.replace(/<@[A-Z0-9]+>/g, '').trim();
}

/** Rich blocks for what the agent did: tasks it created or showed, lists and status. */
async function resultBlocks(runtime: ListenerRuntime, reply: ChatReply): Promise<KnownBlock[]> {
  const blocks: KnownBlock[] = [];
  for (const run of reply.runs.slice(0, 3)) {
    if ('error' in run.result) continue;
    if (run.command === 'create_task' && typeof run.result.created === 'string') {
      const task = await runtime.handler.executeCommand(getTask, { task_id: run.result.created }, { source: 'system' });
      if (!('error' in task)) blocks.push({ type: 'divider' }, ...renderResult('get_task', {}, task).blocks);
    } else if (['get_task', 'list_tasks', 'get_status'].includes(run.command)) {
      blocks.push({ type: 'divider' }, ...renderResult(run.command, run.args, run.result).blocks);
    }
  }
  return blocks;
}

/**
 * Answers a mention or DM in its thread through a ReplySurface: Slack's status and a streamed
 * reply where the workspace offers them, else a placeholder replaced by the reply; with Confirm /
 * Cancel when a command needs a person's say-so, and feedback buttons.
 */
export async function answerChat(runtime: ListenerRuntime, client: WebClient, message: IncomingChat, surfaces: AiSurfaces): Promise<void> {
  const done = surfaces.working();
  try {
    await answer(runtime, client, message, surfaces);
  } finally {
    done();
  }
}

async function answer(runtime: ListenerRuntime, client: WebClient, message: IncomingChat, surfaces: AiSurfaces): Promise<void> {
  if (!(await firstDelivery(runtime, message.eventId))) return;
  if (!runtime.chat) {
    await client.chat.postMessage({ channel: message.channel, thread_ts: message.threadTs, text: NO_CHAT });
    return;
  }
  const target = { channel: message.channel, threadTs: message.threadTs, userId: message.userId, teamId: message.teamId };
  const surface = await ReplySurface.open(client, surfaces.features, target, log);
  const linked = await runtime.handler.execute('get_project_for_channel', { channel_id: message.channel }, { source: 'system' });
  const projectId = 'error' in linked ? null : linked.project_id;
  const conversationId = `${message.channel}:${message.threadTs}`;
  // Slack's Stop on this thread cancels the reply (listeners/events/agent-session.ts).
  const abort = new AbortController();
  surfaces.replies.set(conversationId, abort);
  try {
    const origin = await chatOrigin(client, userNamesOf(runtime), runtime, {
      ...message,
      messageTs: message.messageTs ?? message.threadTs,
      inThread: message.inThread ?? false,
    });
    const reply = await runtime.chat.reply({
      conversationId,
      text: message.text,
      context: origin.context,
      actor: {
        source: 'chat',
        userId: message.userId,
        channelId: message.channel,
        ...(origin.sourceUrl && { sourceUrl: origin.sourceUrl }),
      },
      userName: `<@${message.userId}>`,
      projectId,
      onProgress: (status) => surface.progress(status),
      onToolCall: (call) => surface.toolCall(call),
      signal: abort.signal,
    });
    await surface.finish(finishedReply(reply, await resultBlocks(runtime, reply), conversationId));
  } catch (err) {
    await surface
      .fail(
        `:warning: Something went wrong while answering: ${esc(err instanceof Error ? err.message : String(err))}. Try again, or use \`/aq help\` to run a command directly.`,
      )
      .catch((failure) => log(`Could not tell ${message.channel} that a reply failed: ${String(failure)}`));
  } finally {
    if (surfaces.replies.get(conversationId) === abort) surfaces.replies.delete(conversationId);
  }
}

const log = (m: string) => console.error(m);
