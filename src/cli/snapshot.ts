import type { DialectName } from '../db/dialect';

/**
 * Work done while the CLI's startup snapshot is built (scripts/build-snapshot.js), so a process
 * started from the snapshot finds it done: the command catalog is built when the bundle is
 * evaluated, and this adds the modules `aq exec` loads on demand (esbuild evaluates a dynamic
 * import when it runs) and the ORM, made without a database. Nothing here may open a file, a socket
 * or the database, nor load a native addon: the snapshot cannot hold them. The PostgreSQL
 * snapshot (`dialect`) holds that driver's modules instead of SQLite's.
 */
export async function prepareSnapshot(dialect: DialectName = 'sqlite'): Promise<void> {
  await import('../runtime');
  const orm = await import('../db/orm');
  if (dialect === 'postgresql') await orm.preparePostgresAhead();
  else orm.prepareOrmAhead();
}
