import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { TASK_STATUSES, type TaskStatus } from '../value-sets';
import { dialectOf, rowsFromJson } from '../dialect';
import { pageSlice, selectAsJson } from './run-sql';

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

/** A page row as it comes back in JSON: the values of `LIST_COLUMNS`, in that order. */
type TaskListTuple = [
  id: string,
  projectId: string,
  title: string,
  status: TaskStatus,
  priority: number | string,
  assignedAgent: string | null,
  createdAt: number | string,
  seq: number | string,
];

/** The columns of a page row, aggregated into one JSON value (`dialect.jsonRows`). */
const LIST_COLUMNS = ['id', 'project_id', 'title', 'status', 'priority', 'assigned_agent', 'created_at', 'seq'];

function toSummaryRow([id, projectId, title, status, priority, assignedAgent, createdAt, seq]: TaskListTuple): TaskSummaryRow {
  return {
    id,
    projectId,
    title,
    status,
    priority: Number(priority),
    assignedAgent: assignedAgent ?? null,
    place: { priority: Number(priority), createdAt: Number(createdAt), seq: Number(seq) },
  };
}

/**
 * Page rows, which come back as one JSON value (a row object per row was about two thirds of
 * reading a page of 200 tasks), put in queue order: the aggregate does not promise its input's.
 */
function inQueueOrder(tuples: TaskListTuple[]): TaskSummaryRow[] {
  return tuples
    .map(toSummaryRow)
    .sort((a, b) => a.place.priority - b.place.priority || a.place.createdAt - b.place.createdAt || a.place.seq - b.place.seq);
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

/**
 * Statuses written into a statement as literals rather than bound: there are ten, so each list
 * has a statement of its own, planned for its status. Bound, PostgreSQL planned the statement
 * again at every call (a plan for any status cost more than one for the status asked): about
 * 0.6 ms of a status's page at 100k tasks.
 */
function statusLiterals(statuses: readonly TaskStatus[]): string {
  for (const status of statuses) {
    if (!(TASK_STATUSES as readonly string[]).includes(status)) throw new Error(`Not a task status: ${JSON.stringify(status)}`);
  }
  return statuses.map((status) => `'${status}'`).join(', ');
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
 * The statement reading a page's rows (`rows` of them, from `offset` matches in, or after the
 * place `after`) and its parameters. A keyset page starts at its place, through the order
 * index. A deep offset page walks that index alone to where the page starts, instead of reading
 * and discarding every row before it: through SQLite's rowid, which ends every index, or, on
 * PostgreSQL, to the page's first place (its indexes end in `seq`), read from as a cursor would.
 */
function pageRows(
  em: Reader,
  where: string,
  params: unknown[],
  rows: number,
  options: { offset?: number; after?: TaskPlace; indexed: boolean },
): { sql: string; params: unknown[] } {
  const { order, columns, key } = queueOrder(em);
  const and = where ? `${where} and` : 'where';
  if (options.after) {
    const { priority, createdAt, seq } = options.after;
    return {
      sql: `select ${columns} from tasks ${and} (${order}) > (?, ?, ?) order by ${order}${pageSlice({ limit: rows })}`,
      params: [...params, priority, createdAt, seq],
    };
  }
  const offset = options.offset ?? 0;
  const slice = pageSlice({ limit: rows, offset });
  if (key) {
    return { sql: `select ${columns} from tasks where ${key} in (select ${key} from tasks ${where} order by ${order}${slice})`, params };
  }
  if (offset === 0 || !options.indexed) return { sql: `select ${columns} from tasks ${where} order by ${order}${slice}`, params };
  const start = `select ${order} from tasks ${where} order by ${order}${pageSlice({ limit: 1, offset })}`;
  return {
    sql: `select ${columns} from tasks ${and} (${order}) >= (${start}) order by ${order}${pageSlice({ limit: rows })}`,
    params: [...params, ...params],
  };
}

/**
 * One page of tasks in queue order (priority, then age, then insertion order: unique), from
 * `offset` matches in or after the task whose `placeOf` is `after` (keyset: through the order
 * index however deep), the count of all matches, read from the trigger-kept task_status_counts
 * (its keys are exactly the filter's columns), and whether more follow. With `checkProject`,
 * also whether the filter's project exists. One statement, one row: the counts, and the page as
 * one JSON value beside them, as each statement is a round trip on PostgreSQL.
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
    conditions.push(`status in (${statusLiterals(statuses)})`);
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  // Several statuses share no order index: their page is sorted, wherever it starts.
  const indexed = !statuses || statuses.length <= 1;
  const page = pageRows(em, where, params, limit + 1, { ...options, indexed });
  const counted = options.count !== false;
  const checked = options.checkProject === true && filter.projectId !== undefined;
  const [row] = await em.execute<Array<{ total: number | string; project_found: number | string; page_json: unknown }>>(
    `select ${counted ? `(select coalesce(sum(n), 0) from task_status_counts ${where})` : '-1'} as total,
            ${checked ? '(select count(*) from projects where id = ?)' : '1'} as project_found,
            (select ${dialectOf(em).jsonRows(LIST_COLUMNS)} from (${page.sql}) page_rows) as page_json`,
    [...(counted ? params : []), ...(checked ? [filter.projectId] : []), ...page.params],
  );
  const found = inQueueOrder(rowsFromJson<TaskListTuple>(row?.page_json));
  return {
    tasks: found.slice(0, limit),
    total: Number(row?.total ?? 0),
    more: found.length > limit,
    projectFound: Number(row?.project_found ?? 0) > 0,
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
  const tuples = await selectAsJson<TaskListTuple>(
    em,
    LIST_COLUMNS,
    wanted
      .map(
        ([status, limit], i) =>
          `select * from (select ${columns} from tasks where status = ${statusLiterals([status])} order by ${order}${pageSlice({ limit })}) s${i}`,
      )
      .join(' union all '),
  );
  const result: Partial<Record<TaskStatus, TaskSummaryRow[]>> = Object.fromEntries(wanted.map(([status]) => [status, []]));
  for (const task of inQueueOrder(tuples)) result[task.status]?.push(task);
  return result;
}
