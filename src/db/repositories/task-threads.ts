import type { EmFactory } from '../database';
import { runSql } from './run-sql';

/**
 * Where each task's progress is reported in Slack (one thread per task). Plain statements: every
 * event the notifier posts looks its task's thread up.
 */
export class TaskThreadRepository {
  constructor(private readonly em: EmFactory) {}

  async get(taskId: string): Promise<{ channelId: string; threadTs: string } | null> {
    const rows = await this.em().execute<Array<{ channel_id: string; thread_ts: string }>>(
      'select channel_id, thread_ts from task_threads where task_id = ?',
      [taskId],
    );
    return rows[0] ? { channelId: rows[0].channel_id, threadTs: rows[0].thread_ts } : null;
  }

  /** The task whose thread this is (a reply in a channel is matched to its task by this). */
  async taskFor(channelId: string, threadTs: string): Promise<string | null> {
    const rows = await this.em().execute<Array<{ task_id: string }>>(
      'select task_id from task_threads where channel_id = ? and thread_ts = ?',
      [channelId, threadTs],
    );
    return rows[0]?.task_id ?? null;
  }

  async save(taskId: string, channelId: string, threadTs: string): Promise<void> {
    await runSql(
      this.em(),
      `insert into task_threads (task_id, channel_id, thread_ts, created_at) values (?, ?, ?, ?)
        on conflict (task_id) do update set channel_id = excluded.channel_id, thread_ts = excluded.thread_ts, created_at = excluded.created_at`,
      [taskId, channelId, threadTs, Date.now()],
    );
  }
}
