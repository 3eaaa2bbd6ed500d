import type { EmFactory } from '../database';
import { dialectOf } from '../dialect';
import { backendKeySql } from './backend-key-sql';
import { budgetFromRow, type BudgetRecord } from './budgets';
import { pageSlice, placeholders, selectAsJson } from './run-sql';
import { storedJson } from './column-values';
import {
  ACTIVE_COUNTS_SQL,
  AGENT_BACKENDS_SQL,
  PROJECTS_SQL,
  projectRow,
  QUOTA_HOLDS_SQL,
  type SchedulingWorkspaces,
  workspaceSets,
  workspacesSql,
} from './scheduling-sql';

/** One READY task as the scheduler sees it. */
export interface ReadyTaskRow {
  id: string;
  projectId: string;
  priority: number;
  createdAt: number;
  preferredWorkspaceId: string | null;
  /** The backend it must run on, when asked for or fixed by its first run. */
  backend: string | null;
}

export interface SchedulingProjectRow {
  id: string;
  status: 'ACTIVE' | 'PAUSED';
  creditWeight: number;
  maxConcurrentAgents: number;
  budgetLimit: number | null;
  workspace: string;
  /** Backends its tasks may run on, in order of preference; null allows any. */
  backends: string[] | null;
  /** overlap_policy=serialize: a READY task waits for the live task that touched a file it names. */
  serializesOverlaps: boolean;
}

/** An agent as scheduling sees it: `key` is its backend key (`claude-code` or `acp:<profile>`). */
export interface SchedulingAgentRow {
  id: string;
  type: string;
  key: string;
}

/** A backend at its usage limit: its agents take nothing until `until`. */
export interface QuotaHold {
  backend: string;
  until: Date;
}

/** The columns of waitingContext's union, in the order its JSON rows hold them. */
const CONTEXT_COLUMNS = ['kind', 'id', 'project_id', 's1', 's2', 's3', 's4', 'n1', 'n2', 'n3', 'n4'];
type ContextTuple = [
  kind: string,
  id: string | null,
  project_id: string | null,
  s1: string | null,
  s2: string | null,
  s3: string | null,
  s4: string | null,
  n1: number | null,
  n2: number | null,
  n3: number | null,
  n4: number | null,
];

/** What scheduling knows of the fleet, as the waiting reasons read it (waitingContext). */
export interface WaitingContextRows {
  projects: SchedulingProjectRow[];
  agents: Array<{ key: string; total: number; idle: number }>;
  active: Record<string, number>;
  workspaces: SchedulingWorkspaces;
  holds: QuotaHold[];
  /** Every set_budget budget, in no particular order. */
  budgets: BudgetRecord[];
  /** The asked-for `system_state` rows that exist, by key. */
  state: Map<string, unknown>;
}

/**
 * Whose agents and workspaces a scheduling pass uses: the app's own (`workerId` null) or one
 * worker's. Absent: the whole fleet (status views).
 */
export interface Owner {
  workerId: string | null;
}

function ownerFilter(owner: Owner | undefined, column: string): { sql: string; params: string[] } {
  if (!owner) return { sql: '', params: [] };
  return owner.workerId === null ? { sql: ` and ${column} is null`, params: [] } : { sql: ` and ${column} = ?`, params: [owner.workerId] };
}

/** A daemon's claim to be the one that schedules. */
export interface DaemonLease {
  owner: string;
  heartbeat: number;
}

/** The system_state row of the daemon's lease (its value a JSON DaemonLease). */
export const LEASE_KEY = 'daemon_lease';

/** The system_state row that says scheduling is paused (`pause_orchestrator`): true when it is. */
export const PAUSED_KEY = 'orchestrator_paused';

/** The lease in a LEASE_KEY row's value (JSON text or already parsed); null when absent or unreadable. */
export function leaseFrom(value: unknown): DaemonLease | null {
  if (!value) return null;
  try {
    const parsed = typeof value === 'string' ? JSON.parse(value) : value;
    return { owner: String(parsed.owner), heartbeat: Number(parsed.heartbeat) };
  } catch {
    return null;
  }
}

/** How a pause for a usage limit with a named reset time starts its reason. */
export const QUOTA_PAUSE_PREFIX = 'Usage limit until';

/** Tasks completed per project since `?`: one range of the index tasks_completed_window. */
export const COMPLETED_SINCE_SQL =
  "select project_id, count(*) as n from tasks where status = 'COMPLETED' and completed_at >= ? group by project_id";

/**
 * The scheduler's snapshot, read with bounded SQL: every query either reads a few rows per
 * project through an index or groups a small table, so one pass stays fast at 10k READY tasks.
 */
export class SchedulingRepository {
  constructor(private readonly em: EmFactory) {}

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em().execute(sql, params) as Promise<T[]>;
  }

  async projects(): Promise<SchedulingProjectRow[]> {
    return (await this.query<Record<string, unknown>>(`${PROJECTS_SQL} order by id`)).map(projectRow);
  }

  /**
   * The first `perProject` READY tasks of every ACTIVE project in queue order. The correlated
   * LIMIT walks the (project, status, priority, created_at) index, so cost follows the number of
   * projects, not the number of READY tasks.
   */
  async readyTasks(perProject: number): Promise<Record<string, ReadyTaskRow[]>> {
    const rows = await this.query<Record<string, unknown>>(
      `select t.id, t.project_id, t.priority, t.created_at, t.preferred_workspace_id, t.backend
         from projects p
         join tasks t on t.id in (
           select x.id from tasks x
            where x.project_id = p.id and x.status = 'READY'
            order by x.priority, x.created_at${pageSlice({ limit: Math.max(1, perProject) })})
        where p.status = 'ACTIVE'`,
      [],
    );
    const byProject: Record<string, ReadyTaskRow[]> = {};
    for (const r of rows) {
      const row: ReadyTaskRow = {
        id: String(r.id),
        projectId: String(r.project_id),
        priority: Number(r.priority),
        createdAt: Number(r.created_at),
        preferredWorkspaceId: (r.preferred_workspace_id as string | null) ?? null,
        backend: (r.backend as string | null) ?? null,
      };
      byProject[row.projectId] ??= [];
      byProject[row.projectId].push(row);
    }
    return byProject;
  }

  /** READY tasks per project (those that have any), from the trigger-maintained counts table (summed over its stripes). */
  async readyCounts(): Promise<Record<string, number>> {
    const rows = await this.query<{ project_id: string; n: number }>(
      "select project_id, sum(n) as n from task_status_counts where status = 'READY' group by project_id having sum(n) > 0",
    );
    return Object.fromEntries(rows.map((r) => [r.project_id, Number(r.n)]));
  }

  /**
   * ASSIGNED, IN_PROGRESS and WAITING_INPUT tasks per project (a run waiting for a person still
   * holds its agent and workspace), from the trigger-maintained counts table.
   */
  async activeCounts(): Promise<Record<string, number>> {
    const rows = await this.query<{ project_id: string; n: number }>(ACTIVE_COUNTS_SQL);
    return Object.fromEntries(rows.map((r) => [r.project_id, Number(r.n)]));
  }

  async completedSince(since: Date): Promise<Record<string, number>> {
    const rows = await this.query<{ project_id: string; n: number }>(COMPLETED_SINCE_SQL, [since.getTime()]);
    return Object.fromEntries(rows.map((r) => [r.project_id, Number(r.n)]));
  }

  async tokensSince(since: Date): Promise<{ perProject: Record<string, number>; total: number }> {
    const rows = await this.query<{ project_id: string | null; tokens: number }>(
      'select project_id, sum(tokens) as tokens from token_usage where created_at >= ? group by project_id',
      [since.getTime()],
    );
    const perProject: Record<string, number> = {};
    let total = 0;
    for (const r of rows) {
      total += Number(r.tokens);
      if (r.project_id) perProject[r.project_id] = Number(r.tokens);
    }
    return { perProject, total };
  }

  /** Unlocked workspaces per project (oldest first), the ids of locked ones, and counts per project. */
  async workspaces(owner?: Owner): Promise<SchedulingWorkspaces> {
    const filter = ownerFilter(owner, 'w.worker_id');
    return workspaceSets(await this.query(`${workspacesSql(filter.sql)} order by w.created_at, w.id`, filter.params));
  }

  /**
   * Backends out of quota: while a task of a backend waits for a usage limit that named its reset
   * (QUOTA_PAUSE_PREFIX), that backend's new launches would only hit the same limit. Per backend,
   * the earliest such reset still ahead. A task's backend is fixed at its first run; rows from
   * before backends existed ran on Claude Code. Plain 429 backoffs do not hold anything.
   */
  async quotaHolds(now: Date): Promise<QuotaHold[]> {
    const rows = await this.query<{ backend: string; until: number }>(`${QUOTA_HOLDS_SQL} order by 2, 1`, [
      now.getTime(),
      `${QUOTA_PAUSE_PREFIX}%`,
    ]);
    return rows.map((r) => ({ backend: String(r.backend), until: new Date(Number(r.until)) }));
  }

  async idleAgents(owner?: Owner): Promise<SchedulingAgentRow[]> {
    const { sql, params } = ownerFilter(owner, 'a.worker_id');
    return this.query(
      `select a.id, a.type, ${backendKeySql('a')} as "key" from agents a
        where a.state = 'IDLE' and a.current_task is null${sql} order by a.created_at, a.id`,
      params,
    );
  }

  /** Agents per backend key, and how many of them are idle (agents are few: a whole-table group). */
  async agentBackends(): Promise<Array<{ key: string; total: number; idle: number }>> {
    const rows = await this.query<{ key: string; total: number; idle: number }>(AGENT_BACKENDS_SQL);
    return rows.map((r) => ({ key: String(r.key), total: Number(r.total), idle: Number(r.idle) }));
  }

  /**
   * projects, agentBackends, activeCounts, workspaces and quotaHolds, every budget and the
   * `system_state` rows of `stateKeys` in one statement, each a branch of a union tagged by `kind`
   * (their order does not matter to the waiting reasons): on PostgreSQL every statement is a
   * round trip, and get_status with a daemon made seven here.
   */
  async waitingContext(now: Date, stateKeys: readonly string[] = []): Promise<WaitingContextRows> {
    const n = (column: string) => `cast(${column} as double precision)`;
    const t = (column: string) => `cast(${column} as text)`;
    type Columns = Partial<Record<'id' | 'project' | 's1' | 's2' | 's3' | 's4' | 'n1' | 'n2' | 'n3' | 'n4', string>>;
    const branch = (kind: string, c: Columns, from: string) =>
      `select '${kind}' as kind, ${t(c.id ?? 'null')} as id, ${t(c.project ?? 'null')} as project_id, ${t(c.s1 ?? 'null')} as s1, ${t(c.s2 ?? 'null')} as s2,
              ${t(c.s3 ?? 'null')} as s3, ${t(c.s4 ?? 'null')} as s4, ${n(c.n1 ?? 'null')} as n1, ${n(c.n2 ?? 'null')} as n2, ${n(c.n3 ?? 'null')} as n3,
              ${n(c.n4 ?? 'null')} as n4 from (${from}) ${kind}_rows`;
    const keys = stateKeys.length > 0 ? [...stateKeys] : [''];
    const union = [
      branch(
        'project',
        {
          id: 'id',
          s1: 'status',
          s2: 'workspace',
          s3: 'backends',
          s4: 'overlap_policy',
          n1: 'credit_weight',
          n2: 'max_concurrent_agents',
          n3: 'budget_limit',
        },
        PROJECTS_SQL,
      ),
      branch('agents', { id: '"key"', n1: 'total', n2: 'idle' }, AGENT_BACKENDS_SQL),
      branch('active', { project: 'project_id', n1: 'n' }, ACTIVE_COUNTS_SQL),
      branch('workspace', { id: 'id', project: 'project_id', s1: 'locked_by_task_id', n1: 'path_locked' }, workspacesSql('')),
      branch('hold', { id: 'backend', n1: '"until"' }, QUOTA_HOLDS_SQL),
      branch(
        'budget',
        {
          id: 'scope',
          project: 'project_id',
          s1: 'warned',
          n1: 'token_limit',
          n2: 'cost_limit_usd',
          n3: 'window_hours',
          n4: 'updated_at',
        },
        'select * from budgets',
      ),
      // The JSON column read as its text on both databases, then parsed here.
      branch('state', { id: 'key', s1: 'value' }, `select key, value from system_state where key in (${placeholders(keys)})`),
    ].join(' union all ');
    // About a hundred rows: one JSON value is handed over faster than a row object per row.
    const tuples = await selectAsJson<ContextTuple>(this.em(), CONTEXT_COLUMNS, union, [now.getTime(), `${QUOTA_PAUSE_PREFIX}%`, ...keys]);
    const rows = tuples.map(([kind, id, project_id, s1, s2, s3, s4, n1, n2, n3, n4]) => ({
      kind,
      id,
      project_id,
      s1,
      s2,
      s3,
      s4,
      n1,
      n2,
      n3,
      n4,
    }));
    const of = (kind: string) => rows.filter((r) => r.kind === kind);
    return {
      projects: of('project').map((r) =>
        projectRow({
          id: r.id,
          status: r.s1,
          workspace: r.s2,
          backends: r.s3,
          overlap_policy: r.s4,
          credit_weight: r.n1,
          max_concurrent_agents: r.n2,
          budget_limit: r.n3,
        }),
      ),
      agents: of('agents').map((r) => ({ key: String(r.id), total: Number(r.n1), idle: Number(r.n2) })),
      active: Object.fromEntries(of('active').map((r) => [String(r.project_id), Number(r.n1)])),
      workspaces: workspaceSets(
        of('workspace').map((r) => ({
          id: String(r.id),
          project_id: String(r.project_id),
          locked_by_task_id: r.s1,
          path_locked: Number(r.n1),
        })),
      ),
      holds: of('hold').map((r) => ({ backend: String(r.id), until: new Date(Number(r.n1)) })),
      budgets: of('budget').map((r) =>
        budgetFromRow({
          scope: String(r.id),
          project_id: r.project_id,
          warned: r.s1 ?? '{}',
          token_limit: r.n1,
          cost_limit_usd: r.n2,
          window_hours: Number(r.n3),
          updated_at: Number(r.n4),
        }),
      ),
      state: new Map(of('state').map((r) => [String(r.id), storedJson(r.s1)])),
    };
  }

  // --- the daemon lease -----------------------------------------------------------------------

  /**
   * Takes or renews the lease in one statement: it succeeds when nobody holds it, when `owner`
   * already does, or when the holder's heartbeat is older than `staleMs`.
   */
  async acquireLease(owner: string, now: Date, staleMs: number): Promise<boolean> {
    const value = JSON.stringify({ owner, heartbeat: now.getTime() });
    const connection = this.em();
    const sql = dialectOf(connection);
    const result = (await connection.execute(
      `insert into system_state (key, value, updated_at) values (?, ?, ?)
           on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at
            where ${sql.jsonText('system_state.value', 'owner')} = ?
               or coalesce(${sql.jsonNumber('system_state.value', 'heartbeat')}, 0) < ?`,
      [LEASE_KEY, value, now.getTime(), owner, now.getTime() - staleMs],
      'run',
    )) as { affectedRows?: number };
    return Number(result.affectedRows ?? 0) > 0;
  }

  async releaseLease(owner: string): Promise<void> {
    const connection = this.em();
    await connection.execute(`delete from system_state where key = ? and ${dialectOf(connection).jsonText('value', 'owner')} = ?`, [
      LEASE_KEY,
      owner,
    ]);
  }

  async lease(): Promise<DaemonLease | null> {
    const rows = await this.query<{ value: string | null }>('select value from system_state where key = ?', [LEASE_KEY]);
    return leaseFrom(rows[0]?.value);
  }
}
