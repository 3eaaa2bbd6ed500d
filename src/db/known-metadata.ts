import { MikroORM, type MetadataStorage, type Options } from '@mikro-orm/core';

/**
 * Entity metadata, discovered by the first ORM of each driver in this process and handed to the
 * ones opened after it.
 *
 * Discovery reads every entity definition and derives its columns, types and comparators: 20–90
 * ms of CPU per ORM, a third of opening a database. Its result depends only on the entities and
 * the driver's platform, and MikroORM does not change it once made (every ORM already decorates
 * the same entity prototypes). A process that opens one database pays it once either way; one
 * that opens many (the test runtimes, a migrating second connection, benchmarks) pays it once
 * per driver instead of once per database.
 */
const knownMetadata = new Map<unknown, Promise<MetadataStorage>>();

/** The two steps of MikroORM.init that follow discovery, which it keeps private. */
interface OrmInternals {
  metadata: MetadataStorage;
  createEntityManager(): void;
}

/**
 * MikroORM.init, discovering the entities only for the first ORM of `options.driver`. The rest
 * of init is repeated step by step as MikroORM 6.6 does it (the version is pinned;
 * test/integration/db/known-metadata.test.ts fails if a new one stops matching).
 */
export async function initWithKnownMetadata(options: Options): Promise<MikroORM> {
  // The metadata is the driver's platform's: without a driver named, nothing to key it by.
  if (!options.driver) return MikroORM.init(options);
  // ORMs opened side by side wait for the one discovering; if it fails (say, the database is
  // unreachable), each discovers for itself.
  const pending = knownMetadata.get(options.driver);
  const known = pending ? await pending.catch(() => null) : null;
  if (!known) {
    const discovering = MikroORM.init(options);
    const metadata = discovering.then((orm) => orm.getMetadata());
    knownMetadata.set(options.driver, metadata);
    metadata.catch(() => {
      if (knownMetadata.get(options.driver) === metadata) knownMetadata.delete(options.driver);
    });
    return discovering;
  }
  const orm = new MikroORM(options);
  const internals = orm as unknown as OrmInternals;
  const allowGlobalContext = orm.config.get('allowGlobalContext');
  orm.config.set('allowGlobalContext', true);
  internals.metadata = known;
  internals.createEntityManager();
  orm.config.set('allowGlobalContext', allowGlobalContext);
  orm.em.getPlatform().init(orm);
  if (orm.config.get('connect')) await orm.connect();
  for (const extension of orm.config.get('extensions')) extension.register(orm);
  return orm;
}

/**
 * Takes `metadata`, discovered ahead for `driver` (the CLI's startup snapshot for PostgreSQL), as
 * what the next ORM of that driver in this process starts from.
 */
export function rememberMetadata(driver: unknown, metadata: MetadataStorage): void {
  knownMetadata.set(driver, Promise.resolve(metadata));
}
