import type { TaskRoomRepository } from '../db/repositories/task-rooms';
import type { TaskThreadRepository } from '../db/repositories/task-threads';
import type { TaskSourceThreadRepository } from '../db/repositories/task-source-threads';

/** What finding a task by its Slack thread or room needs from the process (the Runtime has it): lookups, no writes. */
export interface TaskThreadSource {
  db: {
    taskThreads: Pick<TaskThreadRepository, 'taskFor'>;
    taskRooms: Pick<TaskRoomRepository, 'taskFor'>;
    taskSourceThreads: Pick<TaskSourceThreadRepository, 'taskFor'>;
  };
}

/** A channel message event, as far as steering reads it. */
export interface ChannelMessage {
  channel: string;
  channel_type?: string;
  ts: string;
  thread_ts?: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
}

/** A person's reply in some thread of a channel, not to the app. */
export interface ThreadReply {
  channel: string;
  threadTs: string;
  ts: string;
  userId: string;
  text: string;
}

/** Public channels (message.channels) and private ones the app is a member of (message.groups). */
const CHANNEL_TYPES = new Set(['channel', 'group']);

/** Whether a message event comes from a channel, public or private (not a DM). */
export function inChannel(message: Pick<ChannelMessage, 'channel_type'>): boolean {
  return CHANNEL_TYPES.has(message.channel_type ?? '');
}

/** Subtypes that are still a person's new reply (sent to the channel too); edits, joins, bots are not. */
const REPLY_SUBTYPES = new Set([undefined, 'thread_broadcast']);

/**
 * The reply a channel message is, when it may be steering a task; null for everything else
 * (top-level messages, edits and deletions, bots, this app, mentions of the app: the mention
 * path answers those). Decided from the event alone, before anything is looked up.
 */
export function threadReplyOf(message: ChannelMessage, botUserId?: string): ThreadReply | null {
  if (!inChannel(message)) return null;
  if (!REPLY_SUBTYPES.has(message.subtype) || message.bot_id || !message.user || message.user === botUserId) return null;
  if (!message.thread_ts || message.thread_ts === message.ts) return null;
  const text = message.text?.trim();
  if (!text || (botUserId && text.includes(`<@${botUserId}`))) return null;
  return { channel: message.channel, threadTs: message.thread_ts, ts: message.ts, userId: message.user, text };
}

/**
 * A person's top-level message in a channel, which steers a task when the channel is the task's
 * room (decided by taskOfThread); the same rules as threadReplyOf otherwise.
 */
export function roomMessageOf(message: ChannelMessage, botUserId?: string): ThreadReply | null {
  if (message.thread_ts && message.thread_ts !== message.ts) return null;
  // Read as a reply in the thread it starts: the same filters, the same answer.
  const reply = threadReplyOf({ ...message, thread_ts: message.ts, ts: '' }, botUserId);
  return reply && { ...reply, ts: message.ts };
}

/**
 * The task whose thread (or room: a message anywhere in a task's room is for its task; or the
 * thread of the report an intake made it from) this is, or null: a message anywhere else is not
 * read any further.
 */
export async function taskOfThread(source: TaskThreadSource, channel: string, threadTs: string): Promise<string | null> {
  return (
    (await source.db.taskThreads.taskFor(channel, threadTs)) ??
    (await source.db.taskRooms.taskFor(channel)) ??
    (await source.db.taskSourceThreads.taskFor(channel, threadTs))
  );
}
