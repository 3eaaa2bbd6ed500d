import type { EmFactory } from '../database';
import { REPAIRS_KEY } from './reconciliation';
import { storedJson } from './column-values';
import { placeholders, selectAsJson } from './run-sql';

/** The small-table reads behind get_status, as one statement. */
export interface StatusSummary {
  projects: number;
  /** Tasks per status over every project (statuses with none are absent). */
  byStatus: Record<string, number>;
  /** READY tasks per project (projects with none are absent). */
  readyByProject: Record<string, number>;
  /** How many tasks the reconciler repaired. */
  repairs: number;
  /** The asked-for `system_state` rows that exist, by key. */
  state: Map<string, unknown>;
}

/** A row of the union as `selectAsJson` gives it. */
type SummaryTuple = [kind: 'state' | 'status' | 'ready' | 'projects' | 'repairs', name: string, value: string | null, n: number | string];

/**
 * (On PostgreSQL a status's count is spread over several rows, so it is always summed.)
 *
 * get_status reads a count of projects, the per-status and per-project READY counts the
 * triggers keep, the repairs count and a few `system_state` rows: each a tiny read, so on
 * PostgreSQL the round trip, not the reading, is their cost. They come back as the rows of one
 * union, told apart by `kind`.
 */
export class StatusSummaryRepository {
  constructor(private readonly em: EmFactory) {}

  async read(stateKeys: readonly string[]): Promise<StatusSummary> {
    const keys = stateKeys.length > 0 ? [...stateKeys] : [''];
    // Some fifty rows (a READY count per project): handed over as one JSON value.
    const rows = await selectAsJson<SummaryTuple>(
      this.em(),
      ['kind', 'name', 'value', 'n'],
      // The JSON column is read as its text on both databases, then parsed here.
      `select 'state' as kind, key as name, cast(value as text) as value, 0 as n from system_state
          where key in (${placeholders(keys)})
         union all
         select 'status', status, null, sum(n) from task_status_counts group by status having sum(n) > 0
         union all
         select 'ready', project_id, null, sum(n) from task_status_counts where status = 'READY' group by project_id having sum(n) > 0
         union all
         select 'projects', '', null, count(*) from projects
         union all
         select 'repairs', name, null, n from history_counts where name = ?`,
      [...keys, REPAIRS_KEY],
    );
    const summary: StatusSummary = { projects: 0, byStatus: {}, readyByProject: {}, repairs: 0, state: new Map() };
    for (const [kind, name, value, count] of rows) {
      const n = Number(count);
      if (kind === 'state') summary.state.set(name, storedJson(value));
      else if (kind === 'status') summary.byStatus[name] = n;
      else if (kind === 'ready') summary.readyByProject[name] = n;
      else if (kind === 'projects') summary.projects = n;
      else summary.repairs = n;
    }
    return summary;
  }
}
