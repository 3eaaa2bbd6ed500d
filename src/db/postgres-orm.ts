import type { MikroORM, Options } from '@mikro-orm/core';
import { initWithKnownMetadata } from './known-metadata';
import { AppPostgreSqlDriver } from './postgres-driver';

/** Connections a process may hold by default: the app and workers run queries side by side. */
export const DEFAULT_MAX_CONNECTIONS = 10;

/** Opens a PostgreSQL database (`postgres://user:password@host:port/database`) with the app's driver. */
export async function openPostgresOrm(
  url: string,
  options: Pick<Options, 'entities' | 'migrations'>,
  maxConnections = DEFAULT_MAX_CONNECTIONS,
): Promise<MikroORM> {
  return initWithKnownMetadata({
    ...options,
    clientUrl: url,
    driver: AppPostgreSqlDriver,
    allowGlobalContext: false,
    debug: false,
    forceUtcTimezone: true,
    // README asks for an existing, empty database: a wrong name is reported, never created.
    ensureDatabase: false,
    // Connections open on demand and idle ones close, so many processes can share one server.
    pool: { min: 0, max: maxConnections, idleTimeoutMillis: 10_000 },
  });
}
