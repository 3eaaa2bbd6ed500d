import type { EmFactory } from '../database';
import { retryingTransaction } from '../retrying-transaction';
import { changes, pageSlice, placeholders } from './run-sql';

export const TRAIN_STATES = ['waiting', 'updating', 'checking', 'merging', 'sent_back'] as const;
export type TrainState = (typeof TRAIN_STATES)[number];

/** The states of a landing under way: a holder whose lease lapsed leaves its entry in one. */
export const LANDING_STATES: readonly TrainState[] = ['updating', 'checking', 'merging'];

/** A task queued to land. Times are milliseconds since the epoch. */
export interface TrainEntry {
  taskId: string;
  projectId: string;
  /** The train it waits in: its repository's id, or `project:<id>` for a task without one. */
  train: string;
  /** 1 is next to land; counted among the entries of its train. */
  place: number;
  state: TrainState;
  /** When it entered its current state. */
  since: number;
  tries: number;
  lastOutcome: string | null;
}

const COLUMNS = 'task_id, project_id, train, place, state, since, tries, last_outcome';
const ORDER = 'order by place, entered_at, task_id';

/** One train, or every train of a project. */
export type TrainFilter = { train: string } | { projectId: string };

function filterColumn(filter: TrainFilter): ['train' | 'project_id', string] {
  return 'train' in filter ? ['train', filter.train] : ['project_id', filter.projectId];
}

function toEntry(row: Record<string, unknown>): TrainEntry {
  return {
    taskId: String(row.task_id),
    projectId: String(row.project_id),
    train: String(row.train),
    place: Number(row.place_in_train),
    state: String(row.state) as TrainState,
    since: Number(row.since),
    tries: Number(row.tries),
    lastOutcome: row.last_outcome === null || row.last_outcome === undefined ? null : String(row.last_outcome),
  };
}

/**
 * The merge train (one row per queued task) and the per-train landing lock. Every state move is
 * compare-and-set on the state it expects, so a landing is never run twice; the lock is one row
 * per train taken by a conditional upsert, and a holder whose lease lapsed loses it to the next.
 */
export class MergeTrainRepository {
  constructor(private readonly em: EmFactory) {}

  private async rows(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
    return (await this.em().execute(sql, params)) as Array<Record<string, unknown>>;
  }

  /**
   * Queues the task at the end of its train, or puts it back there (waiting) when it is already in;
   * with `onlyIfAbsent`, a task already in a train is left where it is. False when nothing was queued.
   */
  async enter(
    entry: { taskId: string; projectId: string; train: string },
    now: number,
    options: { onlyIfAbsent?: boolean } = {},
  ): Promise<boolean> {
    const onConflict = options.onlyIfAbsent
      ? 'do nothing'
      : `do update set train = excluded.train, place = excluded.place, state = 'waiting',
             since = excluded.since, entered_at = excluded.entered_at`;
    return retryingTransaction(this.em, async (em) => {
      const last = (await em.execute('select coalesce(max(place), 0) as top from merge_train where train = ?', [entry.train])) as Array<{
        top: number | string;
      }>;
      const place = Number(last[0]?.top ?? 0) + 1;
      const queued = await changes(
        em,
        `insert into merge_train (task_id, project_id, train, place, state, since, entered_at, tries, last_outcome)
           values (?, ?, ?, ?, 'waiting', ?, ?, 0, null)
           on conflict (task_id) ${onConflict}`,
        [entry.taskId, entry.projectId, entry.train, place, now, now],
      );
      return queued > 0;
    });
  }

  async get(taskId: string): Promise<TrainEntry | null> {
    const [row] = await this.rows(`select train from merge_train where task_id = ?`, [taskId]);
    if (!row) return null;
    return (await this.list({ train: String(row.train) })).find((e) => e.taskId === taskId) ?? null;
  }

  /**
   * The entries of one train, or of every train of a project, in landing order, each numbered
   * 1, 2, … within its train (the stored `place` only orders them); a page of them with `page`.
   */
  async list(filter: TrainFilter, page?: { limit: number; offset: number }): Promise<TrainEntry[]> {
    const [column, value] = filterColumn(filter);
    const rows = await this.rows(
      `select ${COLUMNS}, row_number() over (partition by train ${ORDER}) as place_in_train
         from merge_train where ${column} = ? order by train, place_in_train${pageSlice(page)}`,
      [value],
    );
    return rows.map(toEntry);
  }

  /** How many entries the train (or the project's trains) holds. */
  async count(filter: TrainFilter): Promise<number> {
    const [column, value] = filterColumn(filter);
    const [row] = await this.rows(`select count(*) as n from merge_train where ${column} = ?`, [value]);
    return Number(row?.n ?? 0);
  }

  /**
   * The trains that have a task waiting to land, or a landing left half-way by a holder whose
   * lease has lapsed (killed mid-landing: nothing else would ever resume it).
   */
  async trainsWaiting(now: number): Promise<string[]> {
    const marks = placeholders(LANDING_STATES);
    const rows = await this.rows(
      `select distinct train from merge_train m
        where state = 'waiting'
           or (state in (${marks})
               and not exists (select 1 from landing_locks l where l.train = m.train and l.lease_until >= ?))
        order by train`,
      [...LANDING_STATES, now],
    );
    return rows.map((r) => String(r.train));
  }

  /** The first entry of the train, whatever its state (a sent-back one waits for its agent and is passed over). */
  async next(train: string): Promise<TrainEntry | null> {
    const entries = await this.list({ train });
    return entries.find((e) => e.state !== 'sent_back') ?? null;
  }

  /** Moves the entry from one of `from` to `to`; false when it was not in one of them (someone else moved it). */
  async advance(
    taskId: string,
    from: readonly TrainState[],
    to: TrainState,
    now: number,
    extra: { lastOutcome?: string | null; countTry?: boolean } = {},
  ): Promise<boolean> {
    const marks = placeholders(from);
    const sets = ['state = ?', 'since = ?'];
    const params: unknown[] = [to, now];
    if (extra.lastOutcome !== undefined) {
      sets.push('last_outcome = ?');
      params.push(extra.lastOutcome);
    }
    if (extra.countTry) sets.push('tries = tries + 1');
    return (
      (await changes(this.em(), `update merge_train set ${sets.join(', ')} where task_id = ? and state in (${marks})`, [
        ...params,
        taskId,
        ...from,
      ])) > 0
    );
  }

  /** Puts back to waiting the entries of a train a lapsed holder left in the middle of a landing. */
  async resumeStranded(train: string, now: number): Promise<number> {
    const marks = placeholders(LANDING_STATES);
    return changes(this.em(), `update merge_train set state = 'waiting', since = ? where train = ? and state in (${marks})`, [
      now,
      train,
      ...LANDING_STATES,
    ]);
  }

  async remove(taskId: string): Promise<boolean> {
    return (await changes(this.em(), 'delete from merge_train where task_id = ?', [taskId])) > 0;
  }

  /**
   * Moves the entry to `place` (1 = the front) among its train's entries, the others keeping their
   * order; a place past the end puts it last. Null when the task is not in a train.
   */
  async moveTo(taskId: string, place: number): Promise<TrainEntry | null> {
    const moved = await retryingTransaction(this.em, async (em) => {
      const [row] = (await em.execute('select train from merge_train where task_id = ?', [taskId])) as Array<{
        train: string;
      }>;
      if (!row) return false;
      const order = (
        (await em.execute(`select task_id from merge_train where train = ? ${ORDER}`, [row.train])) as Array<{
          task_id: string;
        }>
      )
        .map((r) => String(r.task_id))
        .filter((id) => id !== taskId);
      order.splice(Math.max(0, Math.min(place - 1, order.length)), 0, taskId);
      for (const [i, id] of order.entries()) await changes(em, 'update merge_train set place = ? where task_id = ?', [i + 1, id]);
      return true;
    });
    return moved ? this.get(taskId) : null;
  }

  /** Takes (or renews) the train's landing lock for `holder`; false while another holder's lease runs. */
  async acquireLock(train: string, holder: string, leaseMs: number, now: number): Promise<boolean> {
    return (
      (await changes(
        this.em(),
        `insert into landing_locks (train, holder, lease_until) values (?, ?, ?)
           on conflict (train) do update set holder = excluded.holder, lease_until = excluded.lease_until
           where landing_locks.holder = excluded.holder or landing_locks.lease_until < ?`,
        [train, holder, now + leaseMs, now],
      )) > 0
    );
  }

  /** Extends the holder's lease; false when the lock is no longer its own (its lease lapsed and another took it). */
  async renewLock(train: string, holder: string, leaseMs: number, now: number): Promise<boolean> {
    return (
      (await changes(this.em(), 'update landing_locks set lease_until = ? where train = ? and holder = ?', [
        now + leaseMs,
        train,
        holder,
      ])) > 0
    );
  }

  async releaseLock(train: string, holder: string): Promise<void> {
    await changes(this.em(), 'delete from landing_locks where train = ? and holder = ?', [train, holder]);
  }

  async lockHolder(train: string, now: number): Promise<string | null> {
    const [row] = await this.rows('select holder from landing_locks where train = ? and lease_until >= ?', [train, now]);
    return row ? String(row.holder) : null;
  }
}
