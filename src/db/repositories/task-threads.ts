import { TaskThread } from '../entities';
import type { EmFactory } from '../database';

/** Where each task's progress is reported in Slack (one thread per task). */
export class TaskThreadRepository {
  constructor(private readonly em: EmFactory) {}

  async get(taskId: string): Promise<{ channelId: string; threadTs: string } | null> {
    const row = await this.em().findOne(TaskThread, { task: taskId });
    return row ? { channelId: row.channelId, threadTs: row.threadTs } : null;
  }

  /** The task whose thread starts at this message, if any. */
  async taskAt(channelId: string, threadTs: string): Promise<string | null> {
    const row = await this.em().findOne(TaskThread, { channelId, threadTs });
    return row ? row.task.id : null;
  }

  async save(taskId: string, channelId: string, threadTs: string): Promise<void> {
    await this.em().upsert(TaskThread, { task: taskId, channelId, threadTs, createdAt: new Date() });
  }
}
