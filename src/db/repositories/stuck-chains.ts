import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { TaskStatus } from '../value-sets';
import { pageSlice, readInBatches, selectAsJson } from './run-sql';
import { settleAll } from '../../util/settle-all';

/** Queries behind get_chain_health, paged so its reply stays small however long a chain is. */

/** What the queries are read through: the repository's EntityManager, so a transaction's reads are its own. */
type Reader = Pick<SqlEntityManager, 'execute' | 'getPlatform'>;

export interface StuckPage {
  tasks: Array<{ id: string; title: string; status: TaskStatus }>;
  /** Every unfinished task downstream of the root, not only this page. */
  count: number;
}

/** The CTE `down`: every task downstream of a root in `roots` (a list of ids or a subquery), with its depth. */
function downstreamWalk(roots: string): string {
  return `down(root, id, depth) as (
         select depends_on_id, task_id, 1 from task_dependencies where depends_on_id in (${roots})
         union
         select down.root, d.task_id, down.depth + 1 from task_dependencies d join down on d.depends_on_id = down.id
         where down.depth < 1000
       )`;
}

/** The unfinished tasks of `down` (each at its nearest depth), the roots themselves left out. */
const STUCK_ROWS = `select nearest.root, t.id, t.title, t.status, nearest.depth, t.priority, t.created_at
           from tasks t
           join (select root, id, min(depth) as depth from down group by root, id) nearest on nearest.id = t.id
          where t.status <> 'COMPLETED' and t.id <> nearest.root`;

/** The order of a root's stuck tasks: nearest first, then as the queue takes them. */
const NEAREST_FIRST = ['depth', 'priority', 'created_at', 'id'];

/**
 * The CTEs `down` and `stuck` (those of `down` not COMPLETED, numbered per root nearest first as
 * `pos`, with their count per root as `n`). Both numbers come from one window, so the rows are
 * sorted once.
 */
function stuckWalk(roots: string): string {
  return `${downstreamWalk(roots)},
       stuck as (
         select root, id, title, status,
                row_number() over nearest_first as pos,
                count(*) over (nearest_first rows between unbounded preceding and unbounded following) as n
           from (${STUCK_ROWS}) stuck_rows
         window nearest_first as (partition by root order by ${NEAREST_FIRST.join(', ')})
       )`;
}

/**
 * Every unfinished task downstream of each root (transitively), nearest first, in one recursive
 * query per 500 roots. Every root is in the map, with an empty list when nothing waits on it.
 */
export async function everyStuckDownstream(
  em: Reader,
  rootIds: string[],
): Promise<Map<string, Array<{ id: string; title: string; status: TaskStatus }>>> {
  const result = new Map<string, Array<{ id: string; title: string; status: TaskStatus }>>(rootIds.map((id) => [id, []]));
  const rows = await readInBatches(rootIds, (batch, marks) =>
    em.execute<Array<{ root: string; id: string; title: string; status: TaskStatus }>>(
      `with recursive ${downstreamWalk(marks)}
       select root, id, title, status from (${STUCK_ROWS}) stuck_rows order by root, ${NEAREST_FIRST.join(', ')}`,
      batch,
    ),
  );
  for (const r of rows) result.get(r.root)?.push({ id: r.id, title: r.title, status: r.status });
  return result;
}

/**
 * For each root, at most `page.limit` of the unfinished tasks downstream of it (transitively),
 * from `page.offset`, nearest first, and how many there are in all. Roots with nothing stuck
 * behind them are absent. One recursive query per 500 roots.
 */
export async function stuckDownstreamPages(
  em: Reader,
  rootIds: string[],
  page: { limit: number; offset: number },
): Promise<Map<string, StuckPage>> {
  const result = new Map<string, StuckPage>();
  // Row 1 of every root always comes back, so its count does too when the page is past the end.
  const rows = await readInBatches(rootIds, (batch, marks) =>
    em.execute<Array<{ root: string; id: string; title: string; status: TaskStatus; pos: number; n: number }>>(
      `with recursive ${stuckWalk(marks)}
       select root, id, title, status, pos, n from stuck where pos = 1 or (pos > ? and pos <= ?) order by root, pos`,
      [...batch, page.offset, page.offset + page.limit],
    ),
  );
  for (const r of rows) {
    const entry = result.get(r.root) ?? { tasks: [], count: Number(r.n) };
    result.set(r.root, entry);
    if (Number(r.pos) > page.offset) entry.tasks.push({ id: r.id, title: r.title, status: r.status });
  }
  return result;
}

/**
 * A page of the BLOCKED tasks of a project that hold something up (a task waiting on them
 * directly is unfinished), in queue order, and how many there are, from the trigger-kept
 * chain_blockers (migration …_chain_blockers): one index range, whatever the project's history.
 */
export async function blockedHoldingUp(
  em: Reader,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ tasks: Array<{ id: string; title: string }>; total: number }> {
  const [tasks, counts] = await settleAll([
    em.execute<Array<{ id: string; title: string }>>(
      `select t.id, t.title from chain_blockers c join tasks t on t.id = c.task_id
        where c.project_id = ? and c.holds_up = true
        order by c.priority, c.created_at, c.task_id${pageSlice(page)}`,
      [projectId],
    ),
    em.execute<Array<{ n: number }>>('select count(*) as n from chain_blockers where project_id = ? and holds_up = true', [projectId]),
  ]);
  return { tasks: tasks.map((t) => ({ id: t.id, title: t.title })), total: Number(counts[0]?.n ?? 0) };
}

export interface ProjectStuckChains {
  /** Whether the project exists (its chains are empty when it does not). */
  projectFound: boolean;
  /** The page of BLOCKED tasks that hold something up, in queue order, each with its stuck downstream. */
  chains: Array<{ id: string; title: string; stuck: StuckPage }>;
  /** How many BLOCKED tasks of the project hold something up. */
  total: number;
}

/**
 * A row of projectStuckChains' statement: what it is, and its values (absent ones are null). `a`,
 * `b` and `c` are, for the head, whether the project exists and how many blockers it has; for a
 * root, its place on the page; for a stuck task, its depth, priority and created_at.
 */
type ChainRow = [
  kind: 'head' | 'root' | 'stuck',
  root: string | null,
  id: string | null,
  title: string | null,
  status: TaskStatus | null,
  a: number | string,
  b: number | string | null,
  c: number | string | null,
];

/**
 * get_chain_health for a project in one statement: whether the project exists, the count of its
 * blockers, a page of them from chain_blockers and, for each, its `shown` nearest stuck tasks and
 * their count from one walk. On PostgreSQL each statement is a round trip, which was most of it.
 * Its few hundred rows come back as one JSON value (`selectAsJson`), sorted by the database, and
 * each root's stuck tasks are counted and cut to `shown` here: numbering them in a window cost
 * SQLite more than handing them all over.
 */
export async function projectStuckChains(
  em: Reader,
  projectId: string,
  page: { limit: number; offset: number },
  shown: number,
): Promise<ProjectStuckChains> {
  const rows = await selectAsJson<ChainRow>(
    em,
    ['kind', 'root', 'id', 'title', 'status', 'a', 'b', 'c'],
    `with recursive roots as (
       select c.task_id as id, row_number() over (order by c.priority, c.created_at, c.task_id) as pos
         from (select task_id, priority, created_at from chain_blockers where project_id = ? and holds_up = true
                order by priority, created_at, task_id${pageSlice(page)}) c
     ),
     ${downstreamWalk('select id from roots')}
     select 'head' as kind, null as root, null as id, null as title, null as status,
            (select count(*) from projects where id = ?) as a,
            (select count(*) from chain_blockers where project_id = ? and holds_up = true) as b,
            cast(null as bigint) as c
     union all
     select 'root', null, r.id, t.title, null, r.pos, null, null from roots r join tasks t on t.id = r.id
     union all
     select 'stuck', root, id, title, status, depth, priority, created_at from (${STUCK_ROWS}) stuck_rows`,
    [projectId, projectId, projectId],
    // Roots by their place; each root's stuck tasks nearest first, the id compared as the database does.
    ['kind', 'root', 'a', 'b', 'c', 'id'],
  );
  const result: ProjectStuckChains = { projectFound: false, chains: [], total: 0 };
  const roots: ProjectStuckChains['chains'] = [];
  const stuck = new Map<string, StuckPage>();
  for (const [kind, root, id, title, status, a, b] of rows) {
    if (kind === 'head') {
      result.projectFound = Number(a) > 0;
      result.total = Number(b);
    } else if (kind === 'root') {
      roots.push({ id: id as string, title: title as string, stuck: { tasks: [], count: 0 } });
    } else {
      const entry = stuck.get(root as string) ?? { tasks: [], count: 0 };
      stuck.set(root as string, entry);
      entry.count++;
      if (entry.tasks.length < shown) entry.tasks.push({ id: id as string, title: title as string, status: status as TaskStatus });
    }
  }
  for (const chain of roots) result.chains.push({ ...chain, stuck: stuck.get(chain.id) ?? chain.stuck });
  return result;
}
