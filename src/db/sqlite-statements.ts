import { questionMarkOffsets } from './sql-text';
import { storableText } from './storable-text';
import { settleAll } from '../util/settle-all';

/**
 * Statements on node-sqlite3's connection, prepared once and run again with new values.
 *
 * MikroORM writes a statement's values into its SQL text. Run that way, every call prepares its
 * statement anew, and node-sqlite3 takes three trips through its thread pool for it (prepare,
 * run, finalize). Here the values are bound instead, when binding gives SQLite the very values
 * the written-in text would: text, booleans, null, blobs, numbers and dates (as their
 * milliseconds). Then the SQL text is the same on every call, and its prepared statement is kept
 * and run in one trip. A statement whose values cannot be bound that way (arrays, objects, a
 * number that is not finite, an invalid date) is written out and run as before.
 */

interface SqliteStatement {
  all(params: unknown[], callback: (err: Error | null, rows: unknown[]) => void): unknown;
  run(params: unknown[], callback: (this: { lastID: number; changes: number }, err: Error | null) => void): unknown;
  reset(callback: () => void): unknown;
  finalize(callback: (err: Error | null) => void): unknown;
}

interface SqliteDatabase {
  prepare(sql: string, callback: (err: Error | null) => void): SqliteStatement;
  run(sql: string, params: unknown[], callback: (this: { lastID: number; changes: number }, err: Error | null) => void): unknown;
  all(sql: string, params: unknown[], callback: (err: Error | null, rows: unknown[]) => void): unknown;
}

/**
 * Whether node-sqlite3 runs `sql` with `run` (its result is the statement's `lastID` and
 * `changes`) rather than `all` (the rows): MikroORM's SQLite dialect decides it by these words.
 */
export function isSqliteRunStatement(sql: string): boolean {
  const start = sql.trimStart().slice(0, 11).toLowerCase();
  const insert = start === 'insert into';
  if ((insert || start.startsWith('update ')) && / returning /i.test(sql)) return false;
  return insert || start.startsWith('update') || start.startsWith('delete') || start.startsWith('truncate');
}

const QUESTION_MARK = 0x3f;

/**
 * The offsets of the `?` that MikroORM's `formatQuery` and SQLite would both read as the next
 * value, or null when they could read `sql` differently (`questionMarkOffsets`), here also for
 * `?NNN` and `:name`, `@name`, `$name` (which SQLite reads as parameters of their own).
 */
export function placeholderOffsets(sql: string): number[] | null {
  return questionMarkOffsets(sql, (text, i) => {
    const code = text.charCodeAt(i);
    if (code === QUESTION_MARK) {
      const next = text.charCodeAt(i + 1);
      return next >= 0x30 && next <= 0x39;
    }
    return (code === 0x3a || code === 0x40 || code === 0x24) && /[\w$]/.test(text[i + 1] ?? '');
  });
}

/**
 * A whole number that node-sqlite3 would bind as a REAL (it binds only 32-bit ones as integers),
 * which `formatQuery` writes as an integer literal. `+cast(? as integer)` gives SQLite the same
 * integer with no affinity, as a literal has (a bare `cast` would carry INTEGER affinity into
 * comparisons with text).
 */
function isWideInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && (value | 0) !== value;
}

/** The value as node-sqlite3 binds it, the same value SQLite reads from `formatQuery`'s literal; undefined when there is none. */
function boundValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return storableText(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number')
    return Number.isFinite(value) && (Number.isInteger(value) ? Number.isSafeInteger(value) : true) ? value : undefined;
  // MikroORM's SQLite platform writes a Date as its milliseconds (checked the same way).
  if (value instanceof Date) return Number.isSafeInteger(value.getTime()) ? value.getTime() : undefined;
  if (Buffer.isBuffer(value)) return value;
  return undefined;
}

/** `sql` ready to prepare, and the values to bind to it. */
export interface BoundStatement {
  sql: string;
  values: unknown[];
}

/** `sql` with `params` bound rather than written in, or null when binding would not read the same (see above). */
export function bindForSqlite(sql: string, offsets: readonly number[], params: readonly unknown[]): BoundStatement | null {
  if (offsets.length !== params.length) return null;
  const values: unknown[] = [];
  let widened: string[] | null = null;
  let from = 0;
  for (let k = 0; k < params.length; k++) {
    const value = boundValue(params[k]);
    if (value === undefined) return null;
    values.push(value);
    if (isWideInteger(value)) {
      widened ??= [];
      widened.push(sql.slice(from, offsets[k]), '+cast(? as integer)');
      from = offsets[k] + 1;
    }
  }
  if (!widened) return { sql, values };
  widened.push(sql.slice(from));
  return { sql: widened.join(''), values };
}

interface CachedStatement {
  statement: SqliteStatement;
  /** Settles when SQLite has prepared it: rejects with the error a failed prepare gives. */
  prepared: Promise<void>;
  /** Calls holding it: a statement dropped from the cache is finalized when the last one is done. */
  users: number;
  dropped: boolean;
  finalized: boolean;
}

/** What a statement's SQL text says, whatever its values: binding changes neither its first words nor a `returning`. */
interface StatementShape {
  /** Its placeholders (placeholderOffsets), or null when its values are written in. */
  offsets: number[] | null;
  /** Run with node-sqlite3's `run` (isSqliteRunStatement). */
  run: boolean;
  /** Whether its prepared statement may be kept and run again. */
  keepable: boolean;
}

/** Statements longer than this (bulk inserts) are bound but not kept. */
const MAX_KEPT_SQL_LENGTH = 16_384;
/** SQLite's default limit on bound values is 32,766; `formatQuery`'s text has none. */
const MAX_BOUND_VALUES = 999;

function runOnStatement(statement: SqliteStatement, run: boolean, values: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (run) {
      statement.run(values, function (err) {
        if (err) reject(err);
        else resolve({ lastID: this.lastID, changes: this.changes });
      });
    } else {
      statement.all(values, (err, rows) => (err ? reject(err) : resolve(rows)));
    }
  });
}

function runOnce(db: SqliteDatabase, sql: string, values: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (isSqliteRunStatement(sql)) {
      db.run(sql, values, function (err) {
        if (err) reject(err);
        else resolve({ lastID: this.lastID, changes: this.changes });
      });
    } else {
      db.all(sql, values, (err, rows) => (err ? reject(err) : resolve(rows)));
    }
  });
}

/** Finalizes `entry`'s statement once, after what is queued on it; one that failed to prepare SQLite finalized itself. */
function finalize(entry: CachedStatement): Promise<void> {
  if (entry.finalized) return Promise.resolve();
  entry.finalized = true;
  return entry.prepared.then(
    () => new Promise<void>((resolve) => entry.statement.finalize(() => resolve())),
    () => undefined,
  );
}

/**
 * The prepared statements of one MikroORM connection, per node-sqlite3 connection, the most
 * recently used kept. `finalizeAll` must run before the connections close: SQLite will not close
 * a connection with a statement still prepared on it.
 */
export class SqliteStatementCache {
  private readonly byConnection = new Map<SqliteDatabase, Map<string, CachedStatement>>();
  /** What each SQL text's words say, read once per text (binding keeps both). */
  private readonly shapes = new Map<string, StatementShape>();

  constructor(private readonly capacity = 200) {}

  /**
   * Runs `sql` with `params` on `connection` and answers as knex's dialect answers a raw query:
   * rows, or `lastID` and `changes`. `written` gives the SQL with the values written in, for a
   * statement whose values cannot be bound.
   */
  async run(connection: unknown, sql: string, params: readonly unknown[], written: () => string): Promise<unknown> {
    const db = connection as SqliteDatabase;
    const { offsets, run, keepable } = this.shapeOf(sql);
    const bound = offsets && params.length <= MAX_BOUND_VALUES ? bindForSqlite(sql, offsets, params) : null;
    if (!bound) return runOnce(db, written(), []);
    if (!keepable || bound.sql.length > MAX_KEPT_SQL_LENGTH) return runOnce(db, bound.sql, bound.values);
    const entry = this.entry(db, bound.sql);
    entry.users++;
    try {
      await entry.prepared;
      return await runOnStatement(entry.statement, run, bound.values);
    } catch (err) {
      // A statement that failed part way is reset, so that it holds no lock until its next call.
      if (!entry.finalized) entry.statement.reset(() => undefined);
      throw err;
    } finally {
      entry.users--;
      if (entry.dropped && entry.users === 0) void finalize(entry);
    }
  }

  /** Finalizes every kept statement, after the calls queued on each, and forgets them. */
  async finalizeAll(): Promise<void> {
    const entries = [...this.byConnection.values()].flatMap((statements) => [...statements.values()]);
    this.byConnection.clear();
    await settleAll(
      entries.map((entry) => {
        entry.dropped = true;
        return finalize(entry);
      }),
    );
  }

  private shapeOf(sql: string): StatementShape {
    let shape = this.shapes.get(sql);
    if (shape === undefined) {
      const run = isSqliteRunStatement(sql);
      // `run` steps once: a statement that returns rows would stay open after its first one.
      shape = { offsets: placeholderOffsets(sql), run, keepable: !(run && /\breturning\b/i.test(sql)) };
      if (this.shapes.size >= this.capacity * 4) this.shapes.clear();
      this.shapes.set(sql, shape);
    }
    return shape;
  }

  private entry(db: SqliteDatabase, sql: string): CachedStatement {
    let statements = this.byConnection.get(db);
    if (!statements) {
      statements = new Map();
      this.byConnection.set(db, statements);
    }
    const kept = statements.get(sql);
    if (kept) {
      // A Map keeps insertion order: the least recently used statement comes first.
      statements.delete(sql);
      statements.set(sql, kept);
      return kept;
    }
    const entry = this.prepare(db, sql, statements);
    statements.set(sql, entry);
    if (statements.size > this.capacity) {
      const [oldestSql, oldest] = statements.entries().next().value as [string, CachedStatement];
      statements.delete(oldestSql);
      oldest.dropped = true;
      if (oldest.users === 0) void finalize(oldest);
    }
    return entry;
  }

  private prepare(db: SqliteDatabase, sql: string, statements: Map<string, CachedStatement>): CachedStatement {
    let settle!: (err: Error | null) => void;
    const prepared = new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    });
    // Awaited by every call that runs it; this keeps a failed prepare from going unhandled.
    prepared.catch(() => undefined);
    const entry: CachedStatement = {
      statement: db.prepare(sql, (err) => settle(err)),
      prepared,
      users: 0,
      dropped: false,
      finalized: false,
    };
    // Errors reach each call's callback; without a listener, one node-sqlite3 reports with no
    // callback to take it (a call queued on a finalized statement) would throw.
    (entry.statement as unknown as NodeJS.EventEmitter).on('error', () => undefined);
    prepared.catch(() => {
      // SQLite finalized the statement that failed; the next call prepares it again.
      entry.finalized = true;
      if (statements.get(sql) === entry) statements.delete(sql);
    });
    return entry;
  }
}
