import type { WebClient } from '@slack/web-api';
import { permalinkOf } from './source-thread';
import { taskOfThread, type TaskThreadSource } from './task-thread-replies';
import { readThread, threadContextText } from './thread-context';
import type { UserNames } from './user-names';
import { errorMessage } from '../util/error-message';
import { settleAll } from '../util/settle-all';

export interface ChatPlace {
  channel: string;
  /** The thread the answer goes in (the message's own ts when it starts one). */
  threadTs: string;
  /** The message itself. */
  messageTs: string;
  /** True when the message was posted inside an existing thread. */
  inThread: boolean;
  botUserId?: string;
  botId?: string;
}

/** Where a chat message came from, as the chat agent is given it. */
export interface ChatOrigin {
  /** A permalink to the conversation's thread: tasks created from it record it. */
  sourceUrl: string | null;
  /** The thread's earlier messages for the model, or null outside a thread. */
  context: string | null;
}

/**
 * The permalink of a mention's thread and, inside a thread, its earlier messages. A thread that
 * cannot be read (no history scope in a private channel, a deleted thread) only costs the
 * context: the mention is still answered.
 */
export async function chatOrigin(
  client: WebClient,
  names: UserNames,
  source: TaskThreadSource,
  place: ChatPlace,
  log: (message: string) => void = (m) => console.error(m),
): Promise<ChatOrigin> {
  const context = async (): Promise<string | null> => {
    if (!place.inThread) return null;
    try {
      const [taskId, lines] = await settleAll([
        taskOfThread(source, place.channel, place.threadTs),
        readThread(client, names, { channel: place.channel, threadTs: place.threadTs, beforeTs: place.messageTs, ...bot(place) }),
      ]);
      return threadContextText(lines, taskId);
    } catch (err) {
      log(`Could not read the thread ${place.channel}/${place.threadTs} for the chat agent: ${slackError(err)}`);
      return null;
    }
  };
  const [sourceUrl, text] = await settleAll([permalinkOf(client, place.channel, place.threadTs), context()]);
  return { sourceUrl, context: text };
}

function bot(place: ChatPlace): { botUserId?: string; botId?: string } {
  return { ...(place.botUserId && { botUserId: place.botUserId }), ...(place.botId && { botId: place.botId }) };
}

function slackError(err: unknown): string {
  return (err as { data?: { error?: string } }).data?.error ?? errorMessage(err);
}
