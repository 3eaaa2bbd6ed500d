import type { EmFactory } from '../database';
import { storedDate } from './column-values';
import { changes, placeholders } from './run-sql';

/** The scope of the budget over everything (chat and hooks included). */
export const GLOBAL_BUDGET_SCOPE = '*';

export interface BudgetRecord {
  /** A project id, or GLOBAL_BUDGET_SCOPE. */
  scope: string;
  projectId: string | null;
  tokenLimit: number | null;
  costLimitUsd: number | null;
  windowHours: number;
  /** Per warning level, when it was last posted (ms since the epoch). */
  warned: Record<string, number>;
  updatedAt: Date;
}

export interface BudgetLimits {
  tokenLimit: number | null;
  costLimitUsd: number | null;
  windowHours: number;
}

export interface WindowUsage {
  tokens: number;
  costUsd: number;
  /** The oldest usage still in the window, if any. */
  oldest: Date | null;
}

/** A budgets row as both databases return it. */
export interface BudgetRow {
  scope: string;
  project_id: string | null;
  token_limit: number | null;
  cost_limit_usd: number | null;
  window_hours: number;
  warned: string;
  updated_at: number;
}

function parseWarned(text: string): Record<string, number> {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

export function budgetFromRow(r: BudgetRow): BudgetRecord {
  return {
    scope: r.scope,
    projectId: r.project_id ?? null,
    tokenLimit: r.token_limit === null ? null : Number(r.token_limit),
    costLimitUsd: r.cost_limit_usd === null ? null : Number(r.cost_limit_usd),
    windowHours: Number(r.window_hours),
    warned: parseWarned(r.warned),
    updatedAt: new Date(Number(r.updated_at)),
  };
}

const scopeOf = (projectId: string | null): string => projectId ?? GLOBAL_BUDGET_SCOPE;

/** Usage rows of one scope since a moment: a project's through (project_id, created_at), all through created_at. */
function windowFilter(projectId: string | null): string {
  return projectId === null ? 'created_at >= ?' : 'project_id = ? and created_at >= ?';
}
const windowParams = (projectId: string | null, since: Date): unknown[] =>
  projectId === null ? [since.getTime()] : [projectId, since.getTime()];

/**
 * Budgets (migration …_budgets) and the usage they are measured against. Usage is summed over
 * the window's rows only, through the created_at indexes, so its cost follows the window's
 * activity, never the whole history.
 */
export class BudgetRepository {
  constructor(private readonly em: EmFactory) {}

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.em().execute(sql, params) as Promise<T[]>;
  }

  private run(sql: string, params: unknown[]): Promise<number> {
    return changes(this.em(), sql, params);
  }

  async list(): Promise<BudgetRecord[]> {
    // The global budget ('*') sorts before every project id.
    return (await this.query<BudgetRow>('select * from budgets order by scope')).map(budgetFromRow);
  }

  /** A project's budget, or with null the global one. */
  async get(projectId: string | null): Promise<BudgetRecord | null> {
    const rows = await this.query<BudgetRow>('select * from budgets where scope = ?', [scopeOf(projectId)]);
    return rows[0] ? budgetFromRow(rows[0]) : null;
  }

  /** Creates or replaces a budget's limits; the remembered warnings start over with them. */
  async set(projectId: string | null, limits: BudgetLimits, now: Date): Promise<BudgetRecord> {
    await this.run(
      `insert into budgets (scope, project_id, token_limit, cost_limit_usd, window_hours, warned, updated_at) values (?, ?, ?, ?, ?, '{}', ?)
         on conflict (scope) do update set token_limit = excluded.token_limit, cost_limit_usd = excluded.cost_limit_usd,
           window_hours = excluded.window_hours, warned = '{}', updated_at = excluded.updated_at`,
      [scopeOf(projectId), projectId, limits.tokenLimit, limits.costLimitUsd, limits.windowHours, now.getTime()],
    );
    return (await this.get(projectId))!;
  }

  async clear(projectId: string | null): Promise<boolean> {
    return (await this.run('delete from budgets where scope = ?', [scopeOf(projectId)])) > 0;
  }

  /**
   * Records posted warnings as compare-and-set on the previous value, so of two processes that
   * saw the same crossing only one posts it. True when this call won.
   */
  async markWarned(scope: string, previous: Record<string, number>, next: Record<string, number>): Promise<boolean> {
    const changed = await this.run('update budgets set warned = ? where scope = ? and warned = ?', [
      JSON.stringify(next),
      scope,
      JSON.stringify(previous),
    ]);
    return changed > 0;
  }

  /** Tokens and cost of one project (null: of everything) since `since`. */
  async usageSince(projectId: string | null, since: Date): Promise<WindowUsage> {
    const [usage] = await this.usageInWindows([{ projectId, since }]);
    return usage;
  }

  /**
   * usageSince of several windows, in the order given, in one statement: the projects' windows
   * that start at the same moment (budgets mostly share a window length) are one grouped sum
   * through (project_id, created_at), the whole one a sum of its own.
   */
  async usageInWindows(windows: Array<{ projectId: string | null; since: Date }>): Promise<WindowUsage[]> {
    if (windows.length === 0) return [];
    // One branch per window start: the projects' windows from it together, the whole one alone.
    const branches = new Map<string, { index: number; since: number; projectIds: Set<string> | null }>();
    const keyOf = (w: { projectId: string | null; since: Date }) => `${w.projectId === null ? 'all' : 'projects'}@${w.since.getTime()}`;
    for (const w of windows) {
      const branch = branches.get(keyOf(w)) ?? {
        index: branches.size,
        since: w.since.getTime(),
        projectIds: w.projectId === null ? null : new Set<string>(),
      };
      if (w.projectId !== null) branch.projectIds?.add(w.projectId);
      branches.set(keyOf(w), branch);
    }
    const sums = 'sum(tokens) as tokens, sum(cost_usd) as cost, min(created_at) as oldest from token_usage';
    const parts = [...branches.values()].map(({ index, projectIds }) =>
      projectIds
        ? `select ${index} as branch, project_id as scope, ${sums} where project_id in (${placeholders([...projectIds])}) and created_at >= ? group by project_id`
        : `select ${index} as branch, null as scope, ${sums} where created_at >= ?`,
    );
    const params = [...branches.values()].flatMap(({ since, projectIds }) => [...(projectIds ?? []), since]);
    const rows = await this.query<{
      branch: number | string;
      scope: string | null;
      tokens: number | null;
      cost: number | null;
      oldest: number | null;
    }>(parts.join(' union all '), params);
    const found = new Map(rows.map((r) => [`${Number(r.branch)}:${r.scope ?? ''}`, r]));
    return windows.map((w) => {
      const r = found.get(`${branches.get(keyOf(w))?.index}:${w.projectId ?? ''}`);
      return {
        tokens: Number(r?.tokens ?? 0),
        costUsd: Number(r?.cost ?? 0),
        oldest: storedDate(r?.oldest),
      };
    });
  }

  /**
   * The created_at of the usage row whose leaving the window brings the usage under every given
   * limit (rows leave oldest first), or null when none does. Null limits do not count.
   */
  async underLimitsAfter(
    projectId: string | null,
    since: Date,
    used: { tokens: number; costUsd: number },
    limits: { tokenLimit: number | null; costLimitUsd: number | null },
  ): Promise<Date | null> {
    const rows = await this.query<{ created_at: number }>(
      `select created_at from (
         select created_at, sum(tokens) over w as gone_tokens, sum(cost_usd) over w as gone_cost
           from token_usage where ${windowFilter(projectId)}
         window w as (order by created_at, id rows unbounded preceding)) spent
        where (? is null or ? - gone_tokens < ?) and (? is null or ? - gone_cost < ?)
        order by created_at limit 1`,
      [
        ...windowParams(projectId, since),
        limits.tokenLimit,
        used.tokens,
        limits.tokenLimit,
        limits.costLimitUsd,
        used.costUsd,
        limits.costLimitUsd,
      ],
    );
    return rows[0] ? new Date(Number(rows[0].created_at)) : null;
  }
}
