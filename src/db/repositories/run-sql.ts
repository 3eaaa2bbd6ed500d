import type { SqlEntityManager } from '@mikro-orm/sqlite';

/** A write statement's outcome: the rows it changed, and an insert's new id (`returning id` on PostgreSQL). */
export async function runSql(em: SqlEntityManager, sql: string, params: unknown[]): Promise<{ changes: number; id: number }> {
  const result = (await em.execute(sql, params, 'run')) as { affectedRows?: number; insertId?: number };
  return { changes: Number(result.affectedRows ?? 0), id: Number(result.insertId ?? 0) };
}

/** How many rows a write statement changed (compare-and-set writes read success from it). */
export async function changes(em: SqlEntityManager, sql: string, params: unknown[]): Promise<number> {
  return (await runSql(em, sql, params)).changes;
}
