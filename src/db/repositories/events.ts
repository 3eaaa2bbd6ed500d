import { Event } from '../entities';
import type { EmFactory } from '../database';

export interface EventRecord {
  id: number;
  type: string;
  projectId: string | null;
  taskId: string | null;
  agentId: string | null;
  payload: Record<string, unknown>;
  origin: string | null;
  createdAt: Date;
}

function toEventRecord(e: Event): EventRecord {
  return {
    id: e.id,
    type: e.type,
    projectId: e.projectId ?? null,
    taskId: e.taskId ?? null,
    agentId: e.agentId ?? null,
    payload: e.payload ?? {},
    origin: e.origin ?? null,
    createdAt: e.createdAt,
  };
}

export class EventRepository {
  constructor(private readonly em: EmFactory) {}

  async append(data: Omit<EventRecord, 'id' | 'createdAt'>): Promise<EventRecord> {
    const em = this.em();
    const event = em.create(Event, { ...data, createdAt: new Date() });
    await em.flush();
    return toEventRecord(event);
  }

  /**
   * The newest `limit` events, newest first: after skipping the `offset` newest, or older than
   * the event `before` (keyset: a range of the primary key, however deep).
   */
  async recent(limit: number, from: { offset?: number; before?: number } = {}): Promise<EventRecord[]> {
    const where = from.before === undefined ? {} : { id: { $lt: from.before } };
    const rows = await this.em().find(Event, where, { orderBy: { id: 'desc' }, limit, offset: from.offset ?? 0 });
    return rows.map(toEventRecord);
  }

  /** How many events are stored: the sum of the trigger-kept stripes of history_counts (no table scan). */
  async count(): Promise<number> {
    const rows: Array<{ n: number }> = await this.em().execute(
      "select coalesce(sum(n), 0) as n from history_counts where name >= 'events:' and name < 'events;'",
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Events after `afterId`, oldest first: how the daemon picks up events other processes wrote. */
  async since(afterId: number, limit = 200): Promise<EventRecord[]> {
    const rows = await this.em().find(Event, { id: { $gt: afterId } }, { orderBy: { id: 'asc' }, limit });
    return rows.map(toEventRecord);
  }

  async latestId(): Promise<number> {
    const rows: Array<{ id: number | null }> = await this.em().execute('select max(id) as id from events');
    return Number(rows[0]?.id ?? 0);
  }
}
