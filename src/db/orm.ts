import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { MikroORM, defineConfig, type Options } from '@mikro-orm/sqlite';
import { Migrator } from '@mikro-orm/migrations';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** SQLite settings every connection gets: WAL so the daemon and `aq` can share the file. */
const CONNECTION_PRAGMAS =
  'PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL;';

export function ormOptions(databasePath: string): Options {
  return defineConfig({
    dbName: databasePath,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    allowGlobalContext: false,
    debug: false,
    forceUtcTimezone: true,
    migrations: {
      migrationsList: MIGRATIONS,
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

/** Opens the database file (creating its folder) and applies pending migrations. */
export async function openOrm(databasePath: string): Promise<MikroORM> {
  await mkdir(path.dirname(databasePath), { recursive: true });
  const orm = await MikroORM.init(ormOptions(databasePath));
  try {
    await orm.getMigrator().up();
  } catch (err) {
    await orm.close(true);
    throw err;
  }
  return orm;
}
