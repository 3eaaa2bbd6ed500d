import { AbstractSqlDriver, SqliteConnection, SqlitePlatform, type Configuration } from '@mikro-orm/sqlite';
import { withDirectStatements } from './direct-statements';
import { SqliteStatementCache } from './sqlite-statements';
import { storableValue } from './storable-text';

/**
 * The one door every value passes on its way into SQL (writes, and the values of queries), so
 * text from agents, models, git and commands is stored whatever it holds. JSON columns need
 * nothing: JSON.stringify already escapes NUL and lone surrogates as `\u0000`, `\ud800`.
 */
export class StorableTextSqlitePlatform extends SqlitePlatform {
  readonly dialect = 'sqlite';

  override escape(value: unknown): string {
    return super.escape(storableValue(value));
  }
}

/**
 * MikroORM's SQLite connection, its raw statements and plain transactions run on node-sqlite3's
 * own connection (direct-statements.ts), as statements prepared once (sqlite-statements.ts).
 */
export class AppSqliteConnection extends withDirectStatements(SqliteConnection) {
  private readonly statements = new SqliteStatementCache();

  protected override runOnDriver(connection: unknown, sql: string, params: readonly unknown[]): Promise<unknown> {
    return this.statements.run(connection, sql, params, () => this.platform.formatQuery(sql, params as unknown[]));
  }

  override async close(force?: boolean): Promise<void> {
    await this.statements.finalizeAll();
    await super.close(force);
  }
}

/** MikroORM's SQLite driver with the platform and connection above (the same as SqliteDriver otherwise). */
export class AppSqliteDriver extends AbstractSqlDriver<AppSqliteConnection, SqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new StorableTextSqlitePlatform(), AppSqliteConnection, ['knex', 'sqlite3']);
  }
}
