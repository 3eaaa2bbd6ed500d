import { MikroORM, type Options } from '@mikro-orm/core';
import { AppPostgreSqlDriver } from './postgres-driver';

/** Opens a PostgreSQL database (`postgres://user:password@host:port/database`) with the app's driver. */
export async function openPostgresOrm(url: string, options: Pick<Options, 'entities' | 'migrations'>): Promise<MikroORM> {
  return MikroORM.init({
    ...options,
    clientUrl: url,
    driver: AppPostgreSqlDriver,
    allowGlobalContext: false,
    debug: false,
    forceUtcTimezone: true,
    // README asks for an existing, empty database: a wrong name is reported, never created.
    ensureDatabase: false,
    // Connections open on demand and idle ones close, so many processes can share one server.
    pool: { min: 0, max: 10, idleTimeoutMillis: 10_000 },
  });
}
