import { TaskSourceThread } from '../entities';
import type { EmFactory } from '../database';

/** The Slack thread each intake-made task was reported in (see the TaskSourceThread entity). */
export class TaskSourceThreadRepository {
  constructor(private readonly em: EmFactory) {}

  async save(taskId: string, channelId: string, threadTs: string): Promise<void> {
    await this.em().upsert(TaskSourceThread, { task: taskId, channelId, threadTs, createdAt: new Date() });
  }

  /** The newest task reported in this thread, if any. */
  async taskFor(channelId: string, threadTs: string): Promise<string | null> {
    const row = await this.em().findOne(TaskSourceThread, { channelId, threadTs }, { orderBy: { createdAt: 'desc' } });
    return row ? row.task.id : null;
  }
}
