import { TaskRoom } from '../entities';
import type { EmFactory } from '../database';

/** A task's room (Slack code channel) as stored. */
export interface TaskRoomRecord {
  taskId: string;
  channelId: string;
  url: string | null;
  views: string[];
  contextHash: string | null;
  diffHash: string | null;
  diffStats: { files: number; insertions: number; deletions: number } | null;
  archivedAt: Date | null;
}

function toRecord(row: TaskRoom): TaskRoomRecord {
  return {
    taskId: row.task.id,
    channelId: row.channelId,
    url: row.url ?? null,
    views: parseViews(row.views),
    contextHash: row.contextHash ?? null,
    diffHash: row.diffHash ?? null,
    diffStats: row.diffStats ? (JSON.parse(row.diffStats) as TaskRoomRecord['diffStats']) : null,
    archivedAt: row.archivedAt ?? null,
  };
}

function parseViews(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

/** Where each task's room is, what it shows, and what was last written to it. */
export class TaskRoomRepository {
  constructor(private readonly em: EmFactory) {}

  async get(taskId: string): Promise<TaskRoomRecord | null> {
    const row = await this.em().findOne(TaskRoom, { task: taskId });
    return row ? toRecord(row) : null;
  }

  /** The task whose room this channel is (a message in a room is matched to its task by this). */
  async taskFor(channelId: string): Promise<string | null> {
    const row = await this.em().findOne(TaskRoom, { channelId });
    return row ? row.task.id : null;
  }

  /** Remembers the room a task got (again: Slack answers the same channel for the same session). */
  async save(taskId: string, channelId: string, url: string | null): Promise<void> {
    const em = this.em();
    const row = await em.findOne(TaskRoom, { task: taskId });
    if (row) em.assign(row, { channelId, url, archivedAt: null });
    else em.create(TaskRoom, { task: taskId, channelId, url, createdAt: new Date() });
    await em.flush();
  }

  async update(
    taskId: string,
    changes: Partial<Pick<TaskRoomRecord, 'views' | 'contextHash' | 'diffHash' | 'diffStats' | 'archivedAt'>>,
  ): Promise<void> {
    const em = this.em();
    const row = await em.findOne(TaskRoom, { task: taskId });
    if (!row) return;
    const { views, diffStats, ...rest } = changes;
    em.assign(row, {
      ...rest,
      ...(views && { views: JSON.stringify([...new Set(views)]) }),
      ...(diffStats && { diffStats: JSON.stringify(diffStats) }),
    });
    await em.flush();
  }
}
