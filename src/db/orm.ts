import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { MikroORM, defineConfig, type AbstractSqlDriver, type Options, type SqlEntityManager } from '@mikro-orm/sqlite';
import { AppSqliteDriver } from './sqlite-driver';
import { unreachableDatabase } from './connection-errors';
import { settleAll } from '../util/settle-all';

/** Where the data lives: the embedded SQLite file (the default) or a PostgreSQL database. */
export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgresql'; url: string };

/** A target from a SQLite file path or a postgres:// URL. */
export function databaseTarget(location: string | DatabaseTarget): DatabaseTarget {
  if (typeof location !== 'string') return location;
  return /^postgres(ql)?:\/\//i.test(location) ? { dialect: 'postgresql', url: location } : { dialect: 'sqlite', path: location };
}

export interface OpenOptions {
  /**
   * The most PostgreSQL connections this process opens (SQLite always has one). A one-command
   * process (`aq exec`) asks for 1: queries a command issues side by side would otherwise each
   * open a connection, and each connection costs a round of authentication.
   */
  maxConnections?: number;
}

/** A MikroORM instance on either driver (both are MikroORM's SQL drivers). */
export type AnyMikroORM = CoreMikroORM<AbstractSqlDriver, SqlEntityManager>;

/** Serialises migrations between processes that start at once on one PostgreSQL database. */
const MIGRATION_LOCK = 7_216_001;

/**
 * SQLite settings every connection gets: WAL so the daemon and `aq` can share the file; reads
 * through a memory map of the file's first GiB (a million tasks is about 700 MB), so a page that
 * is in the system's file cache costs no read call and no copy.
 */
const CONNECTION_PRAGMAS =
  'PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 1073741824;';

/** Without migrations: openOrm adds the list (and so loads them) only when something is pending. */
export function ormOptions(databasePath: string): Options {
  return defineConfig({
    dbName: databasePath,
    driver: AppSqliteDriver,
    // No entities: every repository runs plain statements (DESIGN.md).
    entities: [],
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: false,
    debug: false,
    forceUtcTimezone: true,
    // On SQLite MikroORM's check only lists the tables (it creates nothing): one query more in every open.
    ensureDatabase: false,
    migrations: {
      migrationsList: [],
      transactional: true,
      snapshot: false,
      silent: true,
    },
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) =>
        conn.exec(CONNECTION_PRAGMAS, (err) => done(err, conn)),
    },
  });
}

/** The migrations shipped beside this file, by name (each file is named as its MIGRATIONS entry). */
export async function shippedMigrationNames(): Promise<string[]> {
  const files = await readdir(path.join(__dirname, 'migrations'));
  return files.flatMap((f) => /^(Migration\d+_\w+)\.(?:ts|js)$/.exec(f)?.[1] ?? []).sort();
}

/** Whether every shipped migration is recorded as applied: one query, no Migrator loaded. */
async function schemaIsCurrent(orm: AnyMikroORM): Promise<boolean> {
  let applied: Array<{ name: string }>;
  try {
    applied = await orm.em.getConnection().execute('select name from mikro_orm_migrations');
  } catch {
    return false; // a new database: no migrations table yet
  }
  const names = new Set(applied.map((r) => r.name));
  return (await shippedMigrationNames()).every((name) => names.has(name));
}

let discovered: MikroORM | null = null;

/**
 * Makes the ORM now, without a database: the CLI's startup snapshot (src/cli/snapshot.ts) holds
 * it and the modules it loads, so the next openOrm in that process only connects.
 */
export function prepareOrmAhead(): void {
  discovered = MikroORM.initSync({ ...ormOptions(':memory:'), connect: false });
}

/** prepareOrmAhead for PostgreSQL: loads its driver and the modules an ORM on it loads. */
export async function preparePostgresAhead(): Promise<void> {
  const postgres = await import('./postgres-orm');
  postgres.preparePostgresAhead(ormOptions('').migrations ?? {});
}

/** The ORM made ahead for this file, or a new one, connected. */
async function initOrm(databasePath: string): Promise<MikroORM> {
  const orm = discovered;
  discovered = null;
  if (!orm) return MikroORM.init(ormOptions(databasePath));
  // SQLite's connection reads the file name from the configuration when it connects.
  orm.config.set('dbName', databasePath);
  await orm.connect();
  return orm;
}

/**
 * Opens the database file (creating its folder) and applies pending migrations. The migrations
 * (and MikroORM's Migrator) are loaded only when something is pending: most opens are an `aq`
 * command on a current database, where loading them is a large part of a cold start.
 */
export async function openOrm(location: string | DatabaseTarget, options: OpenOptions = {}): Promise<AnyMikroORM> {
  const target = databaseTarget(location);
  let orm: AnyMikroORM;
  try {
    if (target.dialect === 'postgresql') {
      orm = await openPostgres(target.url, options.maxConnections);
    } else {
      await mkdir(path.dirname(target.path), { recursive: true });
      orm = (await initOrm(target.path)) as unknown as AnyMikroORM;
    }
  } catch (err) {
    throw unreachableDatabase(err, target) ?? err;
  }
  try {
    // MikroORM only logs a failed connection; the first statement says why, for people.
    await orm.em.getConnection().execute('select 1');
  } catch (err) {
    await orm.close(true).catch(() => undefined);
    throw unreachableDatabase(err, target) ?? err;
  }
  try {
    if (await schemaIsCurrent(orm)) return orm;
    if (target.dialect === 'sqlite') {
      await (await withMigrator(orm)).up();
    } else if ((options.maxConnections ?? Number.POSITIVE_INFINITY) < 2) {
      // The Migrator checks the database and its table on a connection of its own while the
      // lock's transaction holds one: on a single connection it would wait for itself until the
      // pool gives up (a minute). A short-lived ORM with the usual pool migrates instead.
      const migrating = await openPostgres(target.url);
      try {
        await migratePostgres(migrating);
      } finally {
        await migrating.close(true);
      }
    } else {
      await migratePostgres(orm);
    }
  } catch (err) {
    await orm.close(true);
    throw err;
  }
  return orm;
}

async function openPostgres(url: string, maxConnections?: number): Promise<AnyMikroORM> {
  // Loaded only here, so the SQLite default never pays for the PostgreSQL driver.
  const { openPostgresOrm } = await import('./postgres-orm');
  const migrations = ormOptions('').migrations ?? {};
  return (await openPostgresOrm(url, migrations, maxConnections)) as unknown as AnyMikroORM;
}

/** The Migrator of `orm`, with the migrations loaded: only ever when something is pending. */
async function withMigrator(orm: AnyMikroORM) {
  const [{ MIGRATIONS }, { Migrator }] = await settleAll([import('./migrations'), import('@mikro-orm/migrations')]);
  // Read when the Migrator is created, on the first getMigrator() call just below.
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList: MIGRATIONS });
  // Registered here: MikroORM would otherwise look the package up from the current directory
  // (failing outside the checkout) and could load a second copy beside the CLI bundle's.
  Migrator.register(orm as never);
  return orm.getMigrator();
}

/** Processes starting at once (the app, workers) take turns; the later ones find nothing pending. */
async function migratePostgres(orm: AnyMikroORM): Promise<void> {
  const migrator = await withMigrator(orm);
  const connection = orm.em.getConnection();
  await connection.transactional(async (trx) => {
    await connection.execute(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`, [], 'all', trx);
    await migrator.up({ transaction: trx });
  });
}
