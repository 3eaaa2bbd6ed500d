/**
 * The one place where SQLite and PostgreSQL differ in the raw SQL of the repositories. Everything
 * else is written once in SQL both accept: `insert … on conflict … do nothing / do update`
 * (SQLite ≥ 3.24), `returning` (≥ 3.35), `true`/`false` (≥ 3.23), window functions and recursive
 * CTEs. Both store datetimes as milliseconds since the epoch (SQLite through MikroORM's SQLite
 * platform, PostgreSQL through ours in postgres-driver.ts, in `bigint` columns), so a time is the
 * same number in every query, row and parameter on both.
 */
export type DialectName = 'sqlite' | 'postgresql';

export interface SqlDialect {
  readonly name: DialectName;
  /** A JSON column's member `key` as text (`null` when absent). */
  jsonText(column: string, key: string): string;
  /** A JSON column's member `key` as a number (`null` when absent). */
  jsonNumber(column: string, key: string): string;
  /** A tie-breaker that follows insertion order, for stable paging of `tasks`. */
  readonly taskInsertionOrder: string;
  /**
   * What ends every order index of `tasks` and identifies its row (SQLite's rowid), so an offset
   * page can skip index entries alone and read only its own rows; null where the indexes end in
   * no such key (PostgreSQL would fetch each row twice): there a deep page walks the index to its
   * first place instead (task-pages.ts).
   */
  readonly taskIndexRowKey: string | null;
  /** `like` that ignores ASCII case, as SQLite's `like` does. */
  readonly likeIgnoringCase: string;
  /** Appended to an insert so the 'run' result carries the new row's `id` (insertId). */
  readonly returningId: string;
  /**
   * An aggregate of a query's rows as one JSON array of `[value, …]` arrays (see
   * `rowsFromJson`): one value to hand over instead of a row object per row, which was most of
   * the cost of a read that returns a few hundred small rows. The array follows `order` when
   * one is given (the aggregate's own ORDER BY), and no promised order otherwise.
   */
  jsonRows(values: readonly string[], order?: readonly string[]): string;
}

/** An aggregate's ORDER BY (SQLite 3.44 and PostgreSQL read it alike), or nothing. */
const orderClause = (order: readonly string[] | undefined) => (order?.length ? ` order by ${order.join(', ')}` : '');

const SQLITE: SqlDialect = {
  name: 'sqlite',
  jsonText: (column, key) => `json_extract(${column}, '$.${key}')`,
  jsonNumber: (column, key) => `json_extract(${column}, '$.${key}')`,
  taskInsertionOrder: 'rowid',
  taskIndexRowKey: 'rowid',
  likeIgnoringCase: 'like',
  returningId: '',
  // A value that goes through the aggregate's sorter loses its JSON subtype, so json_group_array
  // would take each sorted row for a string: sorted rows are joined as text instead.
  jsonRows: (values, order) =>
    order?.length
      ? `'[' || group_concat(json_array(${values.join(', ')}), ','${orderClause(order)}) || ']'`
      : `json_group_array(json_array(${values.join(', ')}))`,
};

const POSTGRESQL: SqlDialect = {
  name: 'postgresql',
  jsonText: (column, key) => `(${column}->>'${key}')`,
  jsonNumber: (column, key) => `(${column}->>'${key}')::double precision`,
  // The `seq` column (bigserial) exists on PostgreSQL only: it has no rowid.
  taskInsertionOrder: 'seq',
  taskIndexRowKey: null,
  likeIgnoringCase: 'ilike',
  returningId: ' returning id',
  jsonRows: (values, order) => `json_agg(json_build_array(${values.join(', ')})${orderClause(order)})`,
};

export const DIALECTS: Record<DialectName, SqlDialect> = { sqlite: SQLITE, postgresql: POSTGRESQL };

/** Anything that can say which platform it talks to: an EntityManager, a connection, a driver. */
export interface HasPlatform {
  getPlatform(): unknown;
}

/** The dialect of the database behind `source`. */
export function dialectOf(source: HasPlatform): SqlDialect {
  const platform = source.getPlatform() as { dialect?: DialectName };
  return DIALECTS[platform.dialect ?? 'sqlite'];
}

/** Whether the database behind `source` is PostgreSQL (row locks, round trips) rather than SQLite (one writer, in process). */
export function isPostgres(source: HasPlatform): boolean {
  return dialectOf(source).name === 'postgresql';
}

/**
 * The rows `jsonRows` aggregated: SQLite hands the JSON over as text, node-postgres parses it
 * already, and an aggregate of no rows is null on PostgreSQL.
 */
export function rowsFromJson<Row extends unknown[]>(value: unknown): Row[] {
  if (value == null) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as Row[];
}
