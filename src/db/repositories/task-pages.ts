import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { TaskStatus } from '../entities';
import { dialectOf } from '../dialect';
import { placeholders } from './run-sql';

/** Pages of tasks in queue order: list_tasks, get_status's overviews. */

/** What a page is read through: the repository's EntityManager, so a transaction's reads are its own. */
type Reader = Pick<SqlEntityManager, 'execute' | 'getPlatform'>;

export interface TaskListFilter {
  projectId?: string;
  status?: TaskStatus;
  statuses?: TaskStatus[];
}

/** Where a task stands in queue order: the key keyset paging continues after. */
export interface TaskPlace {
  priority: number;
  createdAt: number;
  seq: number;
}

export interface TaskSummaryRow {
  id: string;
  projectId: string;
  title: string;
  status: TaskStatus;
  priority: number;
  assignedAgent: string | null;
  place: TaskPlace;
}

interface TaskListRow {
  id: string;
  project_id: string;
  title: string;
  status: TaskStatus;
  priority: number;
  assigned_agent: string | null;
  created_at: number | string;
  seq: number | string;
}

function toSummaryRow(r: TaskListRow): TaskSummaryRow {
  return {
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    status: r.status,
    priority: Number(r.priority),
    assignedAgent: r.assigned_agent ?? null,
    place: { priority: Number(r.priority), createdAt: Number(r.created_at), seq: Number(r.seq) },
  };
}

export interface TaskPageOptions {
  count?: boolean;
  offset?: number;
  after?: TaskPlace;
  checkProject?: boolean;
}

export interface TaskPage {
  tasks: TaskSummaryRow[];
  total: number;
  more: boolean;
  projectFound: boolean;
}

/** Queue order (priority, then age, then insertion order: unique) and the columns of a page row. */
function queueOrder(em: Reader): { order: string; columns: string; key: string | null } {
  const { taskInsertionOrder: seq, taskIndexRowKey: key } = dialectOf(em);
  return {
    order: `priority, created_at, ${seq}`,
    columns: `id, project_id, title, status, priority, assigned_agent, created_at, ${seq} as seq`,
    key,
  };
}

/**
 * One page of tasks in queue order (priority, then age, then insertion order: unique), from
 * `offset` matches in or after the task whose `placeOf` is `after` (keyset: through the order
 * index however deep), the count of all matches, read from the trigger-kept task_status_counts
 * (its keys are exactly the filter's columns), and whether more follow. With `checkProject`,
 * also whether the filter's project exists. One statement: the page is left-joined to a row
 * of the counts, as each statement is a round trip on PostgreSQL.
 */
export async function taskPage(em: Reader, filter: TaskListFilter, limit: number, options: TaskPageOptions = {}): Promise<TaskPage> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.projectId) {
    conditions.push('project_id = ?');
    params.push(filter.projectId);
  }
  const statuses = filter.status ? [filter.status] : filter.statuses;
  if (statuses && statuses.length > 0) {
    conditions.push(`status in (${placeholders(statuses)})`);
    params.push(...statuses);
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  const { order, columns, key } = queueOrder(em);
  const page = options.after
    ? {
        sql: `select ${columns} from tasks ${where ? `${where} and` : 'where'} (${order}) > (?, ?, ?) order by ${order} limit ?`,
        params: [...params, options.after.priority, options.after.createdAt, options.after.seq, limit + 1],
      }
    : {
        // Where the order index ends in the row's key, the page's keys come from an index-only
        // walk, so a deep offset skips index entries instead of reading and discarding whole rows.
        sql: key
          ? `select ${columns} from tasks where ${key} in (select ${key} from tasks ${where} order by ${order} limit ? offset ?)`
          : `select ${columns} from tasks ${where} order by ${order} limit ? offset ?`,
        params: [...params, limit + 1, options.offset ?? 0],
      };
  const counted = options.count !== false;
  const checked = options.checkProject === true && filter.projectId !== undefined;
  const rows = await em.execute<Array<Partial<TaskListRow> & { total: number | string; project_found: number | string }>>(
    `select c.total, c.project_found, p.* from
       (select ${counted ? `(select coalesce(sum(n), 0) from task_status_counts ${where})` : '-1'} as total,
               ${checked ? '(select count(*) from projects where id = ?)' : '1'} as project_found) c
       left join (${page.sql}) p on 1 = 1
      order by p.priority, p.created_at, p.seq`,
    [...(counted ? params : []), ...(checked ? [filter.projectId] : []), ...page.params],
  );
  const found = rows.filter((r): r is TaskListRow & { total: number; project_found: number } => r.id != null);
  return {
    tasks: found.slice(0, limit).map(toSummaryRow),
    total: Number(rows[0]?.total ?? 0),
    more: found.length > limit,
    projectFound: Number(rows[0]?.project_found ?? 0) > 0,
  };
}

/**
 * The first `limits[status]` tasks of each status in queue order, in one statement (a union of
 * one index range per status), for overviews that show a few of several statuses.
 */
export async function firstTasksInStatuses(
  em: Reader,
  limits: Partial<Record<TaskStatus, number>>,
): Promise<Partial<Record<TaskStatus, TaskSummaryRow[]>>> {
  const wanted = Object.entries(limits) as Array<[TaskStatus, number]>;
  if (wanted.length === 0) return {};
  const { order, columns } = queueOrder(em);
  const rows = await em.execute<TaskListRow[]>(
    `${wanted
      .map((_, i) => `select * from (select ${columns} from tasks where status = ? order by ${order} limit ?) s${i}`)
      .join(' union all ')}
     order by priority, created_at, seq`,
    wanted.flat(),
  );
  const result: Partial<Record<TaskStatus, TaskSummaryRow[]>> = Object.fromEntries(wanted.map(([status]) => [status, []]));
  for (const row of rows) result[row.status]?.push(toSummaryRow(row));
  return result;
}
