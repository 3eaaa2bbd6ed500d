import type { EmFactory } from '../database';
import { runSql } from './run-sql';

/** The Slack thread each intake-made task was reported in (see the TaskSourceThread entity). */
export class TaskSourceThreadRepository {
  constructor(private readonly em: EmFactory) {}

  async save(taskId: string, channelId: string, threadTs: string): Promise<void> {
    await runSql(
      this.em(),
      `insert into task_source_threads (task_id, channel_id, thread_ts, created_at) values (?, ?, ?, ?)
       on conflict (task_id) do update set channel_id = excluded.channel_id, thread_ts = excluded.thread_ts, created_at = excluded.created_at`,
      [taskId, channelId, threadTs, Date.now()],
    );
  }

  /** The newest task reported in this thread, if any. */
  async taskFor(channelId: string, threadTs: string): Promise<string | null> {
    const rows = await this.em().execute<Array<{ task_id: string }>>(
      'select task_id from task_source_threads where channel_id = ? and thread_ts = ? order by created_at desc, task_id desc limit 1',
      [channelId, threadTs],
    );
    return rows[0]?.task_id ?? null;
  }
}
