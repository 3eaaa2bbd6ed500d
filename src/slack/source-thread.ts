import type { WebClient } from '@slack/web-api';
import { fallbackOf } from './blocks/common';
import { md } from './blocks/text';

/** A Slack message as a permalink names it. */
export interface SlackPlace {
  channelId: string;
  threadTs: string;
}

/**
 * The thread a Slack permalink points at: `…/archives/C0123/p1700000000000100` is the message
 * 1700000000.000100 in C0123; a reply's link also carries `?thread_ts=` naming its thread.
 * Null for any other link (a task's source may be a web page).
 */
export function placeOfPermalink(url: string): SlackPlace | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const match = /^\/archives\/([CDG][A-Z0-9]+)\/p(\d{10})(\d{6})$/.exec(parsed.pathname);
  if (!match || !/(^|\.)slack\.com$/.test(parsed.hostname)) return null;
  const threadTs = parsed.searchParams.get('thread_ts');
  return { channelId: match[1], threadTs: threadTs && /^\d+\.\d+$/.test(threadTs) ? threadTs : `${match[2]}.${match[3]}` };
}

/** A permalink to a message, or null when Slack will not give one. */
export async function permalinkOf(client: WebClient, channel: string, ts: string): Promise<string | null> {
  try {
    const answer = await client.chat.getPermalink({ channel, message_ts: ts });
    return answer.permalink ?? null;
  } catch {
    return null;
  }
}

export interface SourcedTask {
  id: string;
  title: string;
  sourceUrl: string;
}

/**
 * Posts one line in the thread a task was asked for in, after `line` (what to say) and with
 * `where` (the task's own thread: a link, or its channel when Slack gives no permalink). Nothing
 * for a source that is not a Slack thread, or a task asked for in its own thread.
 */
async function postInSourceThread(
  client: WebClient,
  task: SourcedTask,
  taskThread: SlackPlace,
  say: (where: { link: string | null; channelId: string }) => { mrkdwn: string; fallback: string },
): Promise<void> {
  const source = placeOfPermalink(task.sourceUrl);
  if (!source || (source.channelId === taskThread.channelId && source.threadTs === taskThread.threadTs)) return;
  const link = await permalinkOf(client, taskThread.channelId, taskThread.threadTs);
  const said = say({ link, channelId: taskThread.channelId });
  await client.chat.postMessage({
    channel: source.channelId,
    thread_ts: source.threadTs,
    text: fallbackOf(said.fallback),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: said.mrkdwn } }],
  });
}

/**
 * Tells the thread a task was asked for in where the task's own thread is, once that thread
 * exists: progress, questions and follow-ups happen there.
 */
export async function linkSourceThread(client: WebClient, task: SourcedTask, taskThread: SlackPlace): Promise<void> {
  await postInSourceThread(client, task, taskThread, ({ link, channelId }) => {
    const where = link ? md`<${link}|its own thread>` : md`its own thread in <#${channelId}>`;
    return {
      mrkdwn: md`🧵 Task \`${task.id}\` *${task.title}* is under way in ${where}: follow it, or reply there to steer the agent.`.text,
      fallback: `🧵 Task ${task.id} ${task.title} is under way in its own thread.`,
    };
  });
}

/** How a task's end reads in the thread it was asked for in, by event; null: not an end. */
function endWords(type: string, payload: Record<string, unknown>): { icon: string; words: string } | null {
  switch (type) {
    case 'task_completed':
      return { icon: '✅', words: 'is done' };
    case 'task_failed':
      return payload.will_retry ? null : { icon: '🔴', words: 'failed' };
    case 'task_blocked':
      return { icon: '⛔', words: 'is blocked' };
    case 'task_stopped':
      return { icon: '⏹️', words: 'was stopped' };
    case 'task_skipped':
      return { icon: '⏭️', words: 'was skipped' };
    default:
      return null;
  }
}

/**
 * Tells the thread a task was asked for in how the task ended (done, failed, blocked, stopped,
 * skipped), with a link to the task's own thread where the details are. Nothing for other
 * events, a source that is not a Slack thread, or a task asked for in its own thread.
 */
export async function tellSourceThreadOutcome(
  client: WebClient,
  task: SourcedTask,
  taskThread: SlackPlace,
  event: { type: string; payload: Record<string, unknown> },
): Promise<void> {
  const end = endWords(event.type, event.payload);
  if (!end) return;
  await postInSourceThread(client, task, taskThread, ({ link, channelId }) => {
    const where = link ? md` (<${link}|details in its thread>)` : md` (details in its thread in <#${channelId}>)`;
    return {
      mrkdwn: md`${end.icon} Task \`${task.id}\` *${task.title}* ${end.words}.`.text + where.text,
      fallback: `${end.icon} Task ${task.id} ${task.title} ${end.words}.`,
    };
  });
}
