import type { EventRecord } from '../../db/repositories/events';
import { firstLine } from './cards-format';
import { fallbackOf, type Rendered } from './common';
import { plainContext } from './text';

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/**
 * The short lines a task's thread shows for messages to its agent: that a running agent got a
 * message, and that a reply to a finished task queued a follow-up. A follow-up's own delivery is
 * not shown: the run starting again ("Started again") says it.
 */
export function conversationReply(event: EventRecord): Rendered | null {
  const p = event.payload as Record<string, unknown>;
  const title = str(p.title) || str(event.taskId);
  if (event.type === 'task_message_delivered') {
    if (p.via !== 'live') return null;
    const from = p.author ? ` from ${str(p.author)}` : '';
    return {
      text: fallbackOf(`📨 Delivered to the agent: ${title}`),
      blocks: [plainContext(`📨 The agent got the message${from}: “${firstLine(p.text, 120)}”`)],
    };
  }
  if (event.type === 'task_follow_up_queued') {
    const how = p.resumes_session ? 'continues its session' : 'starts again with the task and the message';
    const what = p.text
      ? `↩️ Follow-up queued: the agent ${how} on the same branch when a slot is free.`
      : '↩️ The agent finished before it read the last messages: a follow-up run will take them.';
    return { text: fallbackOf(`↩️ Follow-up queued: ${title}`), blocks: [plainContext(what)] };
  }
  return null;
}
