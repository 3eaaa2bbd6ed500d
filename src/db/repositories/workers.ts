import type { EmFactory } from '../database';
import { RUNNING_SQL } from '../value-sets';
import { changes, placeholders } from './run-sql';
import { NOT_QUEUED_TO_LAND } from './task-runs';

/** An `aq worker` process as registered in the database. Times are milliseconds since the epoch. */
export interface WorkerRecord {
  name: string;
  host: string;
  capacity: number;
  /** Its claims lapse this long after its last heartbeat; it counts as alive within it. */
  leaseMs: number;
  /** What it can reach, e.g. `project:web`, `github.com`. */
  labels: string[];
  startedAt: number;
  heartbeatAt: number;
  /** Set when it stopped cleanly; null while it runs (or when it died). */
  stoppedAt: number | null;
  /** Tasks it holds a claim on right now (ASSIGNED or IN_PROGRESS). */
  runningTaskIds: string[];
}

/** Whether the worker runs: not stopped, and its last heartbeat within its lease. */
export function workerAlive(w: Pick<WorkerRecord, 'stoppedAt' | 'heartbeatAt' | 'leaseMs'>, now: number): boolean {
  return w.stoppedAt === null && now - w.heartbeatAt <= w.leaseMs;
}

function parseLabels(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map(String);
  try {
    const parsed = JSON.parse(String(raw ?? '[]')) as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

/** The workers table: registration, heartbeats, and the fleet as status views show it. */
export class WorkerRepository {
  constructor(private readonly em: EmFactory) {}

  private run(sql: string, params: unknown[]): Promise<number> {
    return changes(this.em(), sql, params);
  }

  /** Registers the worker (or re-registers it under the same name after a restart). */
  async register(w: { name: string; host: string; capacity: number; labels: string[]; leaseMs: number }, now: number): Promise<void> {
    await this.run(
      `insert into workers (name, host, capacity, lease_ms, labels, started_at, heartbeat_at, stopped_at) values (?, ?, ?, ?, ?, ?, ?, null)
         on conflict (name) do update set host = excluded.host, capacity = excluded.capacity, lease_ms = excluded.lease_ms,
           labels = excluded.labels, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, stopped_at = null`,
      [w.name, w.host, w.capacity, w.leaseMs, JSON.stringify(w.labels), now, now],
    );
  }

  /** Records that the worker is alive; false when its row is gone (someone removed it). */
  async heartbeat(name: string, now: number): Promise<boolean> {
    return (await this.run('update workers set heartbeat_at = ? where name = ?', [now, name])) > 0;
  }

  /** Records a clean stop; its agents rest (PAUSED) until it starts again, instead of looking idle. */
  async markStopped(name: string, now: number): Promise<void> {
    await this.run('update workers set stopped_at = ?, heartbeat_at = ? where name = ?', [now, now, name]);
    await this.run("update agents set state = 'PAUSED' where worker_id = ? and state = 'IDLE' and current_task is null", [name]);
  }

  /**
   * Forgets the workers that have said nothing since `before` (stopped, or gone without a word, as
   * a replaced container) and hold no claim: their rows, their free agents and their workspaces'
   * rows, but those a task waiting in the merge train holds. Without it every machine that ever
   * ran `aq worker` stays in get_status and list_workers, its agents in the table every status
   * read scans and its workspaces in list_workspaces and every scheduling pass. The folders stay
   * on that machine: one that comes back under its name registers (and makes its agents) again,
   * and takes its checkouts back as it needs them (workspace-provisioning.ts).
   * Returns the names forgotten.
   */
  async forgetSilentSince(before: number): Promise<string[]> {
    const silent = `heartbeat_at < ? and not exists (select 1 from tasks t where t.claimed_by = workers.name and t.status in (${RUNNING_SQL}))`;
    const names = async (sql: string, params: unknown[]) =>
      (await this.em().execute<Array<{ name: string }>>(sql, params)).map((w) => w.name);
    const candidates = await names(`select name from workers where ${silent}`, [before]);
    if (candidates.length === 0) return [];
    // Each statement stands alone: the delete asks again (a worker that registered meanwhile has a
    // fresh heartbeat and stays), and an agent is removed only while no row of its worker exists.
    await this.run(`delete from workers where name in (${placeholders(candidates)}) and ${silent}`, [...candidates, before]);
    const kept = new Set(await names(`select name from workers where name in (${placeholders(candidates)})`, candidates));
    await this.run(
      `delete from agents where worker_id is not null and current_task is null
         and not exists (select 1 from workers w where w.name = agents.worker_id)`,
      [],
    );
    // No run of a forgotten worker goes on, so a lock it left is stale, unless the train lands there.
    await this.run(
      `delete from workspaces where worker_id is not null
         and not exists (select 1 from workers w where w.name = workspaces.worker_id)
         and (locked_by_task_id is null or ${NOT_QUEUED_TO_LAND})`,
      [],
    );
    return candidates.filter((name) => !kept.has(name)).sort();
  }

  async get(name: string): Promise<WorkerRecord | null> {
    return (await this.list()).find((w) => w.name === name) ?? null;
  }

  /** Every registered worker, by name, with the tasks it holds. */
  async list(): Promise<WorkerRecord[]> {
    // The workers and the tasks they hold, as the rows of one union told apart by `kind`: on
    // PostgreSQL each statement is a round trip, and get_status lists the workers on every call.
    const rows = (await this.em().execute(
      `select 'worker' as kind, name, host, capacity, lease_ms, labels, started_at, heartbeat_at, stopped_at, null as task_id from workers
         union all
         select 'claim', claimed_by, null, null, null, null, null, null, null, id from tasks
          where claimed_by is not null and status in (${RUNNING_SQL})
         order by kind, name, task_id`,
    )) as Array<Record<string, unknown>>;
    const held = new Map<string, string[]>();
    const workers: Array<Record<string, unknown>> = [];
    for (const r of rows) {
      if (r.kind === 'worker') workers.push(r);
      else {
        const tasks = held.get(String(r.name)) ?? [];
        tasks.push(String(r.task_id));
        held.set(String(r.name), tasks);
      }
    }
    return workers.map((r) => ({
      name: String(r.name),
      host: String(r.host),
      capacity: Number(r.capacity),
      leaseMs: Number(r.lease_ms),
      labels: parseLabels(r.labels),
      startedAt: Number(r.started_at),
      heartbeatAt: Number(r.heartbeat_at),
      stoppedAt: r.stopped_at === null || r.stopped_at === undefined ? null : Number(r.stopped_at),
      runningTaskIds: held.get(String(r.name)) ?? [],
    }));
  }

  async count(): Promise<number> {
    const rows = (await this.em().execute('select count(*) as n from workers')) as Array<{ n: number }>;
    return Number(rows[0]?.n ?? 0);
  }

  /** Makes the worker's agents (ids `<name>-agent-<n>`) and frees them; returns their ids. */
  async ensureAgents(name: string, capacity: number, now: Date): Promise<string[]> {
    const ids: string[] = [];
    for (let n = 1; n <= capacity; n++) {
      const id = `${name}-agent-${n}`;
      ids.push(id);
      const updated = await this.run('update agents set worker_id = ? where id = ?', [name, id]);
      if (updated > 0) continue;
      await this.run("insert into agents (id, name, type, state, worker_id, created_at) values (?, ?, 'claude', 'IDLE', ?, ?)", [
        id,
        `${name} agent ${n}`,
        name,
        now.getTime(),
      ]);
    }
    // Agents beyond a lowered capacity rest until it grows again.
    const marks = placeholders(ids);
    await this.run(`update agents set state = 'PAUSED' where worker_id = ? and id not in (${marks}) and current_task is null`, [
      name,
      ...ids,
    ]);
    await this.run(`update agents set state = 'IDLE' where worker_id = ? and id in (${marks}) and state = 'PAUSED'`, [name, ...ids]);
    return ids;
  }
}
