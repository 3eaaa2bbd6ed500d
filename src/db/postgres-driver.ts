import { types } from 'node:util';
import { AbstractSqlDriver, PostgreSqlConnection, PostgreSqlPlatform, type Configuration } from '@mikro-orm/postgresql';
import { withDirectStatements } from './direct-statements';
import { synchronousCommitOf } from './postgres-commit';
import { PostgresStatements } from './postgres-statements';
import { storableValue } from './storable-text';

/** pg's OIDs for the types read here as JavaScript numbers. */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * PostgreSQL with the app's storage conventions, so repositories read the same values on both
 * dialects: datetimes are `bigint` milliseconds since the epoch (as SQLite stores them), and
 * NUL and lone surrogates in text become U+FFFD (PostgreSQL refuses NUL in text).
 */
// util.types.isDate, not instanceof: a Date made in another realm (a Jest sandbox, a vm) is still one.
const isDate = (value: unknown): value is Date => types.isDate(value);

export class AppPostgreSqlPlatform extends PostgreSqlPlatform {
  readonly dialect = 'postgresql';

  override escape(value: unknown): string {
    if (isDate(value)) return String(value.getTime());
    return super.escape(storableValue(value));
  }

  override processDateProperty(value: unknown): string | number | Date {
    return isDate(value) ? value.getTime() : (value as string | number);
  }

  override quoteValue(value: unknown): string {
    return isDate(value) ? String(value.getTime()) : super.quoteValue(value);
  }
}

/** Counts, sums and `bigint` columns (times, tokens) come back as numbers, as they do from SQLite. */
class NumericPostgreSqlConnection extends PostgreSqlConnection {
  override getConnectionOptions() {
    const options = super.getConnectionOptions();
    // MikroORM's PostgreSqlConnection sets pg's per-connection type parsers here; these join them.
    const { types } = options as unknown as { types: { setTypeParser(oid: number, parse: (text: string) => unknown): void } };
    types.setTypeParser(INT8, (text: string) => Number(text));
    types.setTypeParser(NUMERIC, (text: string) => Number(text));
    // pg's last resort for a URL without a user is the login name it read from USER when it was
    // loaded, which in the CLI's startup snapshot was the builder's: it is read now instead.
    const named = options as { user?: string };
    named.user ||= process.env.PGUSER || process.env.USER || undefined;
    // Sent as the connection starts, so it costs no statement: SQLite's durability by default.
    // PGOPTIONS, which pg would send in its place, follows it, so what it sets still holds.
    const commit = `-c synchronous_commit=${synchronousCommitOf(this.config.getClientUrl())}`;
    (options as { options?: string }).options = [commit, process.env.PGOPTIONS].filter(Boolean).join(' ');
    return options;
  }
}

/**
 * The connection above, its raw statements and plain transactions run on pg's own client
 * (direct-statements.ts), as named prepared statements where they can be (postgres-statements.ts).
 */
export class AppPostgreSqlConnection extends withDirectStatements(NumericPostgreSqlConnection) {
  private readonly statements = new PostgresStatements();

  protected override runOnDriver(connection: unknown, sql: string, params: readonly unknown[], inTransaction: boolean): Promise<unknown> {
    return this.statements.run(connection, sql, params, inTransaction, () => this.platform.formatQuery(sql, params as unknown[]));
  }
}

export class AppPostgreSqlDriver extends AbstractSqlDriver<AppPostgreSqlConnection, AppPostgreSqlPlatform> {
  constructor(config: Configuration) {
    super(config, new AppPostgreSqlPlatform(), AppPostgreSqlConnection, ['knex', 'pg']);
  }
}
