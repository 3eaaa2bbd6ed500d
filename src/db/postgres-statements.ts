import { types } from 'node:util';
import { questionMarkOffsets } from './sql-text';
import { storableText } from './storable-text';

/**
 * Statements on pg's connection as named prepared statements, their values bound.
 *
 * MikroORM writes a statement's values into its SQL text, so PostgreSQL parsed, analysed and
 * planned every call anew: for get_status's larger reads that was more than their execution
 * (bench/README.md, the ninth reading under "Reads at 1M tasks"). Here each `?` becomes `$n`
 * and its value is sent beside the text, typed as the written-in literal would be: a whole
 * number as `int4` or `int8`, another number as `numeric`, a date as its milliseconds (`int8`),
 * text untyped (as a quoted literal is), and null and booleans still written in. The text is
 * then the same on every call, so the server parses it once per connection and, after a few
 * runs, keeps a plan for it.
 *
 * A statement is run as it was before (values written in) when binding could read differently:
 * values of another kind (arrays, objects, buffers, numbers that are not finite or not exact), a
 * `?` in quotes or a comment, `??`, `\?`, `$` (dollar quoting), several statements in one text,
 * or a statement other than a query or a write. A text the server cannot prepare with its values
 * untyped (a value inside `json_build_array(?)`, say) fails once with a type error, and from then
 * on it is written in; inside a transaction that first try runs under a savepoint, so the
 * transaction goes on (a transaction's statements run one at a time, so that no other statement
 * falls inside that savepoint). A pooler that loses prepared statements between transactions
 * (PgBouncer in transaction mode before 1.21) turns the named statements off for the process.
 */

/** The pg client, as used here: a query by config, and what its connection has parsed. */
interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<unknown>;
  connection: { parsedStatements: Record<string, string> };
}

/** A statement's text with `$n` for its values, and the values as pg sends them. */
export interface PostgresBound {
  text: string;
  values: string[];
}

const QUESTION_MARK = 0x3f;
const DOLLAR = 0x24;
const SEMICOLON = 0x3b;

const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

/** Statements longer than this (bulk inserts) are written in, as are those with more values. */
const MAX_PREPARED_SQL_LENGTH = 16_384;
const MAX_BOUND_VALUES = 1000;

/** The first words of the statements worth preparing: queries and writes, not BEGIN, SET or DDL. */
const PREPARABLE = /^\s*(select|with|insert|update|delete|values)\b/i;

/**
 * The offsets of the `?` that MikroORM's `formatQuery` fills in and PostgreSQL would read as a
 * parameter once it is `$n`, or null when the text could read differently (`questionMarkOffsets`),
 * here also for `?|` and `?&` (jsonb operators `formatQuery` would fill in anyway), `$` (dollar
 * quoting, or a parameter of its own) and a second statement.
 */
export function postgresPlaceholderOffsets(sql: string): number[] | null {
  return questionMarkOffsets(sql, (text, i) => {
    const code = text.charCodeAt(i);
    if (code === QUESTION_MARK) {
      const next = text.charCodeAt(i + 1);
      return next === 0x7c || next === 0x26;
    }
    return code === DOLLAR || (code === SEMICOLON && text.slice(i + 1).trim() !== '');
  });
}

/** The placeholder for `value` (pushing what pg sends for it onto `values`), or undefined when it cannot be bound exactly. */
function placeholderFor(value: unknown, values: string[]): string | undefined {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') {
    values.push(storableText(value));
    return `$${values.length}`;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return undefined;
    values.push(String(value));
    if (!Number.isInteger(value)) return `$${values.length}::numeric`;
    return `$${values.length}::${value >= INT4_MIN && value <= INT4_MAX ? 'int4' : 'int8'}`;
  }
  // The app's platform writes a date as its milliseconds (postgres-driver.ts).
  if (types.isDate(value)) {
    const ms = value.getTime();
    if (!Number.isSafeInteger(ms)) return undefined;
    values.push(String(ms));
    return `$${values.length}::int8`;
  }
  return undefined;
}

/** `sql` with `params` bound at `offsets`, or null when one of them cannot be. */
export function bindForPostgres(sql: string, offsets: readonly number[], params: readonly unknown[]): PostgresBound | null {
  if (offsets.length !== params.length || params.length > MAX_BOUND_VALUES) return null;
  const parts: string[] = [];
  const values: string[] = [];
  let from = 0;
  for (let k = 0; k < params.length; k++) {
    const placeholder = placeholderFor(params[k], values);
    if (placeholder === undefined) return null;
    parts.push(sql.slice(from, offsets[k]), placeholder);
    from = offsets[k] + 1;
  }
  parts.push(sql.slice(from));
  return { text: parts.join(''), values };
}

/** SQLSTATEs of a text the server will not prepare as bound here; the statement is written in instead. */
const NOT_PREPARABLE = new Set([
  '42P18', // indeterminate_datatype: an untyped value where no type can be inferred
  '42P08', // ambiguous_parameter
  '42725', // ambiguous_function
  '42883', // undefined_function (or operator) for the bound types
  '42804', // datatype_mismatch
  '42601', // syntax_error, as "cannot insert multiple commands into a prepared statement"
  '0A000', // feature_not_supported, as "cached plan must not change result type" after a migration elsewhere
]);
/** invalid_sql_statement_name: a pooler between us and the server lost the statement. */
const STATEMENT_LOST = '26000';

const codeOf = (err: unknown) => (err as { code?: unknown } | null)?.code;

/**
 * The named statements of one process: a name per SQL text (`aqN`), and per pg connection the
 * most recently used `capacity` of them kept prepared on the server, the oldest deallocated.
 */
export class PostgresStatements {
  private readonly names = new Map<string, string>();
  /** Texts run without error at least once: inside a transaction they need no savepoint. */
  private readonly proven = new Set<string>();
  /** Texts the server would not prepare: written in from then on. */
  private readonly refused = new Set<string>();
  private readonly offsets = new Map<string, number[] | null>();
  private readonly kept = new WeakMap<PgClient, Map<string, true>>();
  /** Per connection in a transaction, the last statement sent there: the next one waits for it. */
  private readonly transactionTail = new WeakMap<PgClient, Promise<void>>();
  private nextName = 0;
  private nextSavepoint = 0;
  private off = false;

  constructor(private readonly capacity = 200) {}

  /**
   * Runs `sql` with `params` on `connection` (a pg client), as a named statement when it can be,
   * else with its values written in (`written`). `inTransaction` says whether a failure would
   * abort a transaction the connection is in.
   */
  run(connection: unknown, sql: string, params: readonly unknown[], inTransaction: boolean, written: () => string): Promise<unknown> {
    const client = connection as PgClient;
    if (!inTransaction) return this.runNow(client, sql, params, false, written);
    // A transaction's statements run one at a time here, as the server runs them anyway: a first
    // run's savepoint must not take in a statement sent beside it, which its rollback would undo.
    const previous = this.transactionTail.get(client) ?? Promise.resolve();
    const result = previous.then(() => this.runNow(client, sql, params, true, written));
    this.transactionTail.set(
      client,
      result.then(
        () => undefined,
        () => undefined,
      ),
    );
    return result;
  }

  private async runNow(
    client: PgClient,
    sql: string,
    params: readonly unknown[],
    inTransaction: boolean,
    written: () => string,
  ): Promise<unknown> {
    const bound = this.off || !PREPARABLE.test(sql) ? null : this.bind(sql, params);
    if (!bound || this.refused.has(bound.text)) return client.query({ text: written(), values: [] });
    const name = await this.keep(client, bound.text);
    const query = { name, text: bound.text, values: bound.values };
    if (!inTransaction || this.proven.has(bound.text)) {
      try {
        const result = await client.query(query);
        this.proven.add(bound.text);
        return result;
      } catch (err) {
        if (!this.decline(client, name, bound.text, err) || inTransaction) throw err;
        return client.query({ text: written(), values: [] });
      }
    }
    // Its first run in a transaction: a text the server will not prepare must not abort it.
    const savepoint = `aq_prepare${this.nextSavepoint++}`;
    await client.query({ text: `savepoint ${savepoint}`, values: [] });
    try {
      const result = await client.query(query);
      await client.query({ text: `release savepoint ${savepoint}`, values: [] });
      this.proven.add(bound.text);
      return result;
    } catch (err) {
      await client.query({ text: `rollback to savepoint ${savepoint}`, values: [] });
      await client.query({ text: `release savepoint ${savepoint}`, values: [] });
      if (!this.decline(client, name, bound.text, err)) throw err;
      return client.query({ text: written(), values: [] });
    }
  }

  private bind(sql: string, params: readonly unknown[]): PostgresBound | null {
    if (sql.length > MAX_PREPARED_SQL_LENGTH) return null;
    let offsets = this.offsets.get(sql);
    if (offsets === undefined) {
      offsets = postgresPlaceholderOffsets(sql);
      if (this.offsets.size >= this.capacity * 10) this.offsets.clear();
      this.offsets.set(sql, offsets);
    }
    return offsets ? bindForPostgres(sql, offsets, params) : null;
  }

  /** The text's name, prepared or to be prepared on `client` among its most recently used. */
  private async keep(client: PgClient, text: string): Promise<string> {
    let name = this.names.get(text);
    if (name === undefined) {
      // Names are never reused for another text (pg refuses that), so a full map can start over.
      if (this.names.size >= this.capacity * 10) {
        this.names.clear();
        this.proven.clear();
        this.refused.clear();
      }
      name = `aq${this.nextName++}`;
      this.names.set(text, name);
    }
    let kept = this.kept.get(client);
    if (!kept) {
      kept = new Map();
      this.kept.set(client, kept);
    }
    if (kept.delete(name)) {
      kept.set(name, true);
      return name;
    }
    kept.set(name, true);
    if (kept.size > this.capacity) {
      const [oldest] = kept.keys();
      kept.delete(oldest);
      if (client.connection.parsedStatements[oldest] !== undefined) {
        await client.query({ text: `deallocate ${oldest}`, values: [] });
        delete client.connection.parsedStatements[oldest];
      }
    }
    return name;
  }

  /** Whether `err` says the text cannot run as a named statement; if so it is written in from now on. */
  private decline(client: PgClient, name: string, text: string, err: unknown): boolean {
    const code = codeOf(err);
    if (code === STATEMENT_LOST) this.off = true;
    else if (typeof code !== 'string' || !NOT_PREPARABLE.has(code)) return false;
    this.refused.add(text);
    this.proven.delete(text);
    this.kept.get(client)?.delete(name);
    return true;
  }
}
