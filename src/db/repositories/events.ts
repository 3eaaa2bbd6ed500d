import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { EmFactory } from '../database';
import { dialectOf } from '../dialect';
import { pageSlice, runSql, selectAsJson } from './run-sql';

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

/** An event as selectAsJson gives it: the values of EVENT_COLUMNS, in that order. */
type EventTuple = [
  id: number | string,
  type: string,
  projectId: string | null,
  taskId: string | null,
  agentId: string | null,
  payload: string | null,
  origin: string | null,
  createdAt: number | string,
];

const EVENT_COLUMNS = ['id', 'type', 'project_id', 'task_id', 'agent_id', 'payload', 'origin', 'created_at'];
/** The payload, a JSON column, as its text on both databases: parsed here, as MikroORM would. */
const EVENT_SELECT = 'id, type, project_id, task_id, agent_id, cast(payload as text) as payload, origin, created_at';

/** A stored payload: `{}` where there is none (or, written by hand, it is not JSON). */
function parsedPayload(text: string | null): Record<string, unknown> {
  if (text == null) return {};
  try {
    return (JSON.parse(text) as Record<string, unknown> | null) ?? {};
  } catch {
    return {};
  }
}

function fromTuple([id, type, projectId, taskId, agentId, payload, origin, createdAt]: EventTuple): EventRecord {
  return {
    id: Number(id),
    type,
    projectId,
    taskId,
    agentId,
    payload: parsedPayload(payload),
    origin,
    createdAt: new Date(Number(createdAt)),
  };
}

/** An event to store: the columns the caller gives. */
export type NewEvent = Omit<EventRecord, 'id' | 'createdAt'>;

/**
 * Stores an event by one insert statement through `em`: on its own, or inside the transaction of
 * the change it reports (a new task and its `task_created` commit together).
 */
export async function insertEvent(em: SqlEntityManager, data: NewEvent): Promise<EventRecord> {
  const createdAt = new Date();
  const { id } = await runSql(
    em,
    `insert into events (type, project_id, task_id, agent_id, payload, origin, created_at) values (?, ?, ?, ?, ?, ?, ?)${dialectOf(em).returningId}`,
    [data.type, data.projectId, data.taskId, data.agentId, JSON.stringify(data.payload), data.origin, createdAt.getTime()],
  );
  return { ...data, id, createdAt };
}

export class EventRepository {
  constructor(private readonly em: EmFactory) {}

  /**
   * One insert statement: every emit appends one, and through the ORM's unit of work (its
   * changeset, a transaction of its own) each cost several times the statement.
   */
  append(data: NewEvent): Promise<EventRecord> {
    return insertEvent(this.em(), data);
  }

  /**
   * The newest `limit` events, newest first: after skipping the `offset` newest, or older than
   * the event `before` (keyset: a range of the primary key, however deep).
   */
  async recent(limit: number, from: { offset?: number; before?: number } = {}): Promise<EventRecord[]> {
    const before = from.before === undefined ? '' : 'where id < ?';
    const rows = await this.page(
      `${before} order by id desc${pageSlice({ limit, offset: from.offset ?? 0 })}`,
      from.before === undefined ? [] : [from.before],
    );
    return rows.sort((a, b) => b.id - a.id);
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
    const rows = await this.page(`where id > ? order by id${pageSlice({ limit })}`, [afterId]);
    return rows.sort((a, b) => a.id - b.id);
  }

  /** Events of `select … from events <rest>`, read as one JSON value (selectAsJson), in no order. */
  private async page(rest: string, params: unknown[]): Promise<EventRecord[]> {
    const tuples = await selectAsJson<EventTuple>(this.em(), EVENT_COLUMNS, `select ${EVENT_SELECT} from events ${rest}`, params);
    return tuples.map(fromTuple);
  }

  async latestId(): Promise<number> {
    const rows: Array<{ id: number | null }> = await this.em().execute('select max(id) as id from events');
    return Number(rows[0]?.id ?? 0);
  }
}
