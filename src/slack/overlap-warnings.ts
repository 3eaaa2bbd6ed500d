import type { WebClient } from '@slack/web-api';
import type { Database } from '../db/database';
import type { EventRecord } from '../db/repositories/events';
import type { OverlapPayload } from '../orchestrator/conflict-radar';
import { overlapCleared, overlapWarning } from './blocks/overlap-warning';
import { permalinkOf } from './source-thread';
import { settleAll } from '../util/settle-all';

/** Where a warning was posted and for which files (system_state, so a restarted app finds it). */
interface PostedWarning {
  channelId: string;
  ts: string;
  files: string[];
}

function warningKey(pair: [string, string], taskId: string): string {
  return `slack_overlap_warning:${pair[0]}:${pair[1]}:${taskId}`;
}

function isOverlapPayload(p: Record<string, unknown>): p is Record<string, unknown> & OverlapPayload {
  return Array.isArray(p.task_ids) && p.task_ids.length === 2 && Array.isArray(p.tasks) && p.tasks.length === 2 && Array.isArray(p.files);
}

/**
 * The radar's warnings in task threads: one message in each of the two threads, posted once per
 * pair; a changed file set edits it (a file set already shown changes nothing), and the end of
 * the overlap edits it to say so. Events arrive one at a time (the notifier's queue).
 */
export class OverlapWarnings {
  constructor(
    private readonly client: WebClient,
    private readonly db: Pick<Database, 'taskThreads' | 'state'>,
  ) {}

  async handle(event: EventRecord): Promise<void> {
    const p = event.payload;
    if (!isOverlapPayload(p)) return;
    const threads = await settleAll(p.task_ids.map((id) => this.db.taskThreads.get(id)));
    const links = await settleAll(threads.map((t) => (t ? permalinkOf(this.client, t.channelId, t.threadTs) : null)));
    for (const mine of [0, 1]) {
      const thread = threads[mine];
      if (!thread) continue;
      const key = warningKey(p.task_ids, p.task_ids[mine]);
      const posted = await this.db.state.get<PostedWarning | null>(key, null);
      const otherLink = links[1 - mine];
      if (event.type === 'overlap_cleared') {
        if (!posted) continue;
        const message = overlapCleared(p, mine, otherLink);
        await this.client.chat.update({ channel: posted.channelId, ts: posted.ts, text: message.text, blocks: message.blocks });
        await this.db.state.set(key, null);
        continue;
      }
      if (posted && JSON.stringify(posted.files) === JSON.stringify(p.files)) continue;
      const message = overlapWarning(p, mine, otherLink);
      if (posted) {
        await this.client.chat.update({ channel: posted.channelId, ts: posted.ts, text: message.text, blocks: message.blocks });
        await this.db.state.set(key, { ...posted, files: p.files } satisfies PostedWarning);
        continue;
      }
      const sent = await this.client.chat.postMessage({
        channel: thread.channelId,
        thread_ts: thread.threadTs,
        text: message.text,
        blocks: message.blocks,
      });
      if (sent.ts) await this.db.state.set(key, { channelId: thread.channelId, ts: sent.ts, files: p.files } satisfies PostedWarning);
    }
  }
}
