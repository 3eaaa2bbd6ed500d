import type { EmFactory } from '../database';
import { storedDate } from './column-values';
import { columnAssignments, type FieldColumn, fieldColumns, runSql } from './run-sql';

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

interface RoomRow {
  task_id: string;
  channel_id: string;
  url: string | null;
  views: string;
  context_hash: string | null;
  diff_hash: string | null;
  diff_stats: string | null;
  archived_at: number | null;
}

const ROOM_COLUMNS = 'task_id, channel_id, url, views, context_hash, diff_hash, diff_stats, archived_at';

function toRecord(row: RoomRow): TaskRoomRecord {
  return {
    taskId: row.task_id,
    channelId: row.channel_id,
    url: row.url,
    views: parseViews(row.views),
    contextHash: row.context_hash,
    diffHash: row.diff_hash,
    diffStats: row.diff_stats ? (JSON.parse(row.diff_stats) as TaskRoomRecord['diffStats']) : null,
    archivedAt: storedDate(row.archived_at),
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

/** What a room keeper writes after a change; diff stats, once shown, are only ever replaced. */
type RoomChanges = Partial<Pick<TaskRoomRecord, 'views' | 'contextHash' | 'diffHash' | 'archivedAt'>> & {
  diffStats?: NonNullable<TaskRoomRecord['diffStats']>;
};

/** The fields an update may change and their columns (views once each, JSON columns as their text). */
const ROOM_FIELDS: ReadonlyArray<FieldColumn<RoomChanges>> = [
  ['views', 'views', (views: string[]) => JSON.stringify([...new Set(views)])],
  ['contextHash', 'context_hash'],
  ['diffHash', 'diff_hash'],
  ['diffStats', 'diff_stats', JSON.stringify],
  ['archivedAt', 'archived_at', (at: Date | null) => at?.getTime() ?? null],
];

/**
 * Where each task's room is, what it shows, and what was last written to it, in plain statements:
 * the notifier looks a task's room up for every event it posts, and writes what it showed.
 */
export class TaskRoomRepository {
  constructor(private readonly em: EmFactory) {}

  async get(taskId: string): Promise<TaskRoomRecord | null> {
    const rows = await this.em().execute<RoomRow[]>(`select ${ROOM_COLUMNS} from task_rooms where task_id = ?`, [taskId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The task whose room this channel is (a message in a room is matched to its task by this). */
  async taskFor(channelId: string): Promise<string | null> {
    const rows = await this.em().execute<Array<{ task_id: string }>>('select task_id from task_rooms where channel_id = ?', [channelId]);
    return rows[0]?.task_id ?? null;
  }

  /** Remembers the room a task got (again: Slack answers the same channel for the same session). */
  async save(taskId: string, channelId: string, url: string | null): Promise<void> {
    await runSql(
      this.em(),
      `insert into task_rooms (task_id, channel_id, url, views, created_at) values (?, ?, ?, '[]', ?)
       on conflict (task_id) do update set channel_id = excluded.channel_id, url = excluded.url, archived_at = null`,
      [taskId, channelId, url, Date.now()],
    );
  }

  async update(taskId: string, changes: RoomChanges): Promise<void> {
    const values = fieldColumns(changes, ROOM_FIELDS);
    if (values.length === 0) return;
    const set = columnAssignments(values);
    await runSql(this.em(), `update task_rooms set ${set.sql} where task_id = ?`, [...set.params, taskId]);
  }
}
