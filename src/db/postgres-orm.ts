import { MikroORM, type Options } from '@mikro-orm/core';
import { AppPostgreSqlDriver } from './postgres-driver';

/** Connections a process may hold by default: the app and workers run queries side by side. */
export const DEFAULT_MAX_CONNECTIONS = 10;

/** The options of every PostgreSQL ORM of the app, for `url`. */
function postgresOptions(url: string, migrations: Options['migrations'], maxConnections: number): Options {
  return {
    clientUrl: url,
    driver: AppPostgreSqlDriver,
    // No entities: every repository runs plain statements (DESIGN.md).
    entities: [],
    discovery: { warnWhenNoEntities: false },
    migrations,
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
  migrations: Options['migrations'],
  maxConnections = DEFAULT_MAX_CONNECTIONS,
): Promise<MikroORM> {
  return MikroORM.init(postgresOptions(url, migrations, maxConnections));
}

/**
 * Makes an ORM for PostgreSQL without a server, and lets it go: the CLI's PostgreSQL startup
 * snapshot then holds the driver's modules and those an ORM loads as it is made.
 */
export function preparePostgresAhead(migrations: Options['migrations']): void {
  MikroORM.initSync({ ...postgresOptions('postgresql://localhost/unused', migrations, 1), connect: false });
}
