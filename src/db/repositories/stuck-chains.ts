import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { TaskStatus } from '../entities';

/** Queries behind get_chain_health, paged so its reply stays small however long a chain is. */

type Connection = ReturnType<SqlEntityManager['getConnection']>;

export interface StuckPage {
  tasks: Array<{ id: string; title: string; status: TaskStatus }>;
  /** Every unfinished task downstream of the root, not only this page. */
  count: number;
}

/**
 * For each root, at most `page.limit` of the unfinished tasks downstream of it (transitively),
 * from `page.offset`, nearest first, and how many there are in all. Roots with nothing stuck
 * behind them are absent. One recursive query per 500 roots.
 */
export async function stuckDownstreamPages(
  conn: Connection,
  rootIds: string[],
  page: { limit: number; offset: number },
): Promise<Map<string, StuckPage>> {
  const result = new Map<string, StuckPage>();
  // Batches keep the bound-parameter list well under SQLite's limit.
  for (let start = 0; start < rootIds.length; start += 500) {
    const batch = rootIds.slice(start, start + 500);
    // Row 1 of every root always comes back, so its count does too when the page is past the end.
    const rows = await conn.execute<Array<{ root: string; id: string; title: string; status: TaskStatus; pos: number; n: number }>>(
      `with recursive down(root, id, depth) as (
         select depends_on_id, task_id, 1 from task_dependencies where depends_on_id in (${batch.map(() => '?').join(', ')})
         union
         select down.root, d.task_id, down.depth + 1 from task_dependencies d join down on d.depends_on_id = down.id
         where down.depth < 1000
       ),
       stuck as (
         select nearest.root, t.id, t.title, t.status,
                row_number() over (partition by nearest.root order by nearest.depth, t.priority, t.created_at, t.id) as pos,
                count(*) over (partition by nearest.root) as n
           from tasks t
           join (select root, id, min(depth) as depth from down group by root, id) nearest on nearest.id = t.id
          where t.status <> 'COMPLETED' and t.id <> nearest.root
       )
       select root, id, title, status, pos, n from stuck where pos = 1 or (pos > ? and pos <= ?) order by root, pos`,
      [...batch, page.offset, page.offset + page.limit],
    );
    for (const r of rows) {
      const entry = result.get(r.root) ?? { tasks: [], count: Number(r.n) };
      result.set(r.root, entry);
      if (Number(r.pos) > page.offset) entry.tasks.push({ id: r.id, title: r.title, status: r.status });
    }
  }
  return result;
}

/**
 * A page of the BLOCKED tasks of a project that hold something up (a task waiting on them
 * directly is unfinished), in queue order, and how many there are, from the trigger-kept
 * chain_blockers (migration …_chain_blockers): one index range, whatever the project's history.
 */
export async function blockedHoldingUp(
  conn: Connection,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ tasks: Array<{ id: string; title: string }>; total: number }> {
  const [tasks, counts] = await Promise.all([
    conn.execute<Array<{ id: string; title: string }>>(
      `select t.id, t.title from chain_blockers c join tasks t on t.id = c.task_id
        where c.project_id = ? and c.holds_up = true
        order by c.priority, c.created_at, c.task_id limit ? offset ?`,
      [projectId, page.limit, page.offset],
    ),
    conn.execute<Array<{ n: number }>>('select count(*) as n from chain_blockers where project_id = ? and holds_up = true', [projectId]),
  ]);
  return { tasks: tasks.map((t) => ({ id: t.id, title: t.title })), total: Number(counts[0]?.n ?? 0) };
}
