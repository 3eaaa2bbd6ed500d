import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { dialectOf, rowsFromJson } from '../dialect';
import { retrying } from '../retrying-transaction';

/**
 * A write statement's outcome: the rows it changed, and an insert's new id (`returning id` on
 * PostgreSQL). Outside a transaction the statement stands alone and is retried when it loses a
 * race (retrying-transaction.ts); inside one, the transaction is what gets retried.
 */
export async function runSql(em: SqlEntityManager, sql: string, params: unknown[]): Promise<{ changes: number; id: number }> {
  const result = await alone(em, async () => (await em.execute(sql, params, 'run')) as { affectedRows?: number; insertId?: number });
  return { changes: Number(result.affectedRows ?? 0), id: Number(result.insertId ?? 0) };
}

/** The rows a write statement's `returning` gives, retried as runSql retries it. */
export function writeReturning<Row>(em: SqlEntityManager, sql: string, params: unknown[]): Promise<Row[]> {
  return alone(em, () => em.execute<Row[]>(sql, params, 'all'));
}

/** `write` retried when it loses a race if it stands alone; inside a transaction, once (the transaction is retried). */
function alone<T>(em: SqlEntityManager, write: () => Promise<T>): Promise<T> {
  return em.isInTransaction() ? write() : retrying(write);
}

/** How many rows a write statement changed (compare-and-set writes read success from it). */
export async function changes(em: SqlEntityManager, sql: string, params: unknown[]): Promise<number> {
  return (await runSql(em, sql, params)).changes;
}

/** `a = ?, b = ?` and its values, for an update of the given columns (names are ours, never input). */
export function columnAssignments(values: ReadonlyArray<readonly [column: string, value: unknown]>): { sql: string; params: unknown[] } {
  return { sql: values.map(([column]) => `${column} = ?`).join(', '), params: values.map(([, value]) => value) };
}

/** A field of a record, the column it is stored in, and how its value is stored (as it is, without `store`). */
export type FieldColumn<T> = readonly [field: keyof T & string, column: string, store?: (value: never) => unknown];

/**
 * The columns and stored values of the fields `given` sets, in the order of `fields`: a field
 * left undefined is left out (null is a value). For an insert's column list, or an update through
 * columnAssignments.
 */
export function fieldColumns<T>(given: Partial<T>, fields: ReadonlyArray<FieldColumn<T>>): Array<readonly [string, unknown]> {
  return fields
    .filter(([field]) => given[field] !== undefined)
    .map(([field, column, store]) => [column, store ? (store as (value: unknown) => unknown)(given[field]) : given[field]] as const);
}

/** `?, ?, ?` with one mark per value: the bound parameters of an `in (…)` list. */
export function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/**
 * ` limit <n>[ offset <m>]` (with its leading space; nothing without a page), the numbers written
 * into the text instead of bound. PostgreSQL costs a
 * plan made for any values as if a bound limit or offset read a tenth of the rows, so on a large
 * table it never kept one for a page's statement and planned it again at every run (at 1M tasks:
 * 1.1–1.4 ms a run for get_chain_health's walk, 0.1–0.2 ms for a list page). Written in, the
 * kept plan costs what a fresh one does and is kept after the server's first five runs; each page
 * size and place is its own statement. Refuses anything but a whole number from 0 up, so nothing
 * else reaches the text.
 */
export function pageSlice(page: { limit: number; offset?: number } | undefined): string {
  if (!page) return '';
  const { limit, offset } = page;
  for (const n of [limit, offset ?? 0]) {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Not a row count: ${n}`);
  }
  return offset === undefined ? ` limit ${limit}` : ` limit ${limit} offset ${offset}`;
}

/**
 * Runs `read` on `values` 500 at a time, each batch with its `?, ?, …` for an `in (…)` list, and
 * joins their rows in order: the bound parameters stay well under SQLite's limit, and a short
 * list (nearly always) is one statement.
 */
export async function readInBatches<T, R>(values: T[], read: (batch: T[], placeholders: string) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = [];
  for (let start = 0; start < values.length; start += 500) {
    const batch = values.slice(start, start + 500);
    rows.push(...(await read(batch, placeholders(batch))));
  }
  return rows;
}

/**
 * `select <columns> from <table> [where <where>] order by created_at, id [limit n offset m]`: a
 * small table's rows oldest first, as its list command pages them. Through `em`, so that a
 * repository bound to a transaction reads inside it.
 */
export function oldestFirst<R>(
  em: SqlEntityManager,
  from: { table: string; columns: string },
  where: string,
  params: unknown[],
  page?: { limit: number; offset: number },
): Promise<R[]> {
  return em.execute<R[]>(
    `select ${from.columns} from ${from.table}${where && ` where ${where}`} order by created_at, id${pageSlice(page)}`,
    params,
  );
}

/**
 * The rows of `sql` (a select of `columns`, in that order) as tuples, read back as one JSON value
 * (`dialect.jsonRows`): a row object per row was most of the cost of reads that return tens to
 * hundreds of small rows. The aggregate does not promise the select's order: callers that need
 * one give `order` (columns of the select, the database sorting as an ORDER BY would), or sort
 * the tuples themselves.
 */
export async function selectAsJson<Row extends unknown[]>(
  em: Pick<SqlEntityManager, 'execute' | 'getPlatform'>,
  columns: readonly string[],
  sql: string,
  params: unknown[] = [],
  order?: readonly string[],
): Promise<Row[]> {
  const [result] = await em.execute<Array<{ rows_json: unknown }>>(
    `select ${dialectOf(em).jsonRows(columns, order)} as rows_json from (${sql}) json_rows`,
    params,
  );
  return rowsFromJson<Row>(result?.rows_json);
}
