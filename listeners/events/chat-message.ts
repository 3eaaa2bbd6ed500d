import type { WebClient } from '@slack/web-api';
import { getTask } from '../../src/commands/tasks';
import type { ListenerRuntime } from '../index';
import type { KnownBlock } from '@slack/types';
import type { ChatReply } from '../../src/chat/service';
import { chatReplyBlocks } from '../../src/slack/chat-replies';
import { capBlocks, esc } from '../../src/slack/blocks/common';
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
 * Answers a mention or DM in its thread: a placeholder that shows the agent's progress, then the
 * reply (with Confirm / Cancel buttons when a command needs a person's say-so).
 */
export async function answerChat(runtime: ListenerRuntime, client: WebClient, message: IncomingChat): Promise<void> {
  if (!(await firstDelivery(runtime, message.eventId))) return;
  if (!runtime.chat) {
    await client.chat.postMessage({ channel: message.channel, thread_ts: message.threadTs, text: NO_CHAT });
    return;
  }
  const placeholder = await client.chat.postMessage({
    channel: message.channel,
    thread_ts: message.threadTs,
    text: ':thought_balloon: Thinking…',
  });
  const ts = placeholder.ts as string;
  let lastStatus = '';
  const onProgress = async (status: string) => {
    if (status === lastStatus) return;
    lastStatus = status;
    await client.chat.update({ channel: message.channel, ts, text: `:thought_balloon: ${esc(status)}` }).catch(() => undefined);
  };
  const linked = await runtime.handler.execute('get_project_for_channel', { channel_id: message.channel }, { source: 'system' });
  const projectId = typeof linked.project_id === 'string' ? linked.project_id : null;
  try {
    const origin = await chatOrigin(client, userNamesOf(runtime), runtime, {
      ...message,
      messageTs: message.messageTs ?? message.threadTs,
      inThread: message.inThread ?? false,
    });
    const reply = await runtime.chat.reply({
      conversationId: `${message.channel}:${message.threadTs}`,
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
      onProgress,
    });
    const rendered = chatReplyBlocks(reply);
    const results = await resultBlocks(runtime, reply);
    await client.chat.update({ channel: message.channel, ts, text: rendered.text, blocks: capBlocks([...rendered.blocks, ...results]) });
  } catch (err) {
    await client.chat.update({
      channel: message.channel,
      ts,
      text: `:warning: Something went wrong while answering: ${esc(err instanceof Error ? err.message : String(err))}. Try again, or use \`/aq help\` to run a command directly.`,
    });
  }
}
