import { Migration, type Query } from '@mikro-orm/migrations';
import { isPostgres } from '../dialect';

/**
 * Rewrites the SQLite DDL the migrations are written in for PostgreSQL: quoted names, datetimes as
 * `bigint` milliseconds (see dialect.ts), integer flags as booleans, autoincrement as bigserial,
 * every integer as bigint (token sums outgrow 32 bits). Only table and index statements go
 * through it; triggers are written for each dialect (see postgres/).
 */
export function postgresDdl(sql: string): string {
  return sql
    .replace(/`/g, '"')
    .replace(/\binteger (not null )?primary key autoincrement\b/g, 'bigserial primary key')
    .replace(/\binteger not null default (true|false)\b/g, 'boolean not null default $1')
    .replace(/\bdatetime\b/g, 'bigint')
    .replace(/\binteger\b/g, 'bigint')
    .replace(/\b(double|real)\b/g, 'double precision');
}

/** A migration written in SQLite's SQL that also runs on PostgreSQL (through postgresDdl). */
export abstract class PortableMigration extends Migration {
  protected get postgres(): boolean {
    return isPostgres(this.driver);
  }

  override addSql(sql: Query): void {
    super.addSql(this.postgres && typeof sql === 'string' ? postgresDdl(sql) : sql);
  }

  /** Adds statements as written, untranslated (PostgreSQL's own trigger functions). */
  protected addNativeSql(statements: string[]): void {
    for (const sql of statements) super.addSql(sql);
  }
}
