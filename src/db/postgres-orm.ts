import { MikroORM, type Options } from '@mikro-orm/core';
import { initWithKnownMetadata, rememberMetadata } from './known-metadata';
import { AppPostgreSqlDriver } from './postgres-driver';

/** Connections a process may hold by default: the app and workers run queries side by side. */
export const DEFAULT_MAX_CONNECTIONS = 10;

/** The options of every PostgreSQL ORM of the app, for `url`. */
function postgresOptions(url: string, options: Pick<Options, 'entities' | 'migrations'>, maxConnections: number): Options {
  return {
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
  };
}

/** Opens a PostgreSQL database (`postgres://user:password@host:port/database`) with the app's driver. */
export async function openPostgresOrm(
  url: string,
  options: Pick<Options, 'entities' | 'migrations'>,
  maxConnections = DEFAULT_MAX_CONNECTIONS,
): Promise<MikroORM> {
  return initWithKnownMetadata(postgresOptions(url, options, maxConnections));
}

/**
 * Discovers the entities for PostgreSQL now, without a server: the CLI's PostgreSQL startup
 * snapshot holds the result (and the driver's modules), so the next openPostgresOrm in that
 * process only connects. The metadata depends on the entities and the platform, not the URL.
 */
export function discoverPostgresAhead(options: Pick<Options, 'entities' | 'migrations'>): void {
  const orm = MikroORM.initSync({ ...postgresOptions('postgresql://localhost/unused', options, 1), connect: false });
  rememberMetadata(AppPostgreSqlDriver, orm.getMetadata());
}
