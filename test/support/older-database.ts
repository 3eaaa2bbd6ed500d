import { MikroORM } from '@mikro-orm/sqlite';
import { ormOptions } from '../../src/db/orm';
import { MIGRATIONS } from '../../src/db/migrations';

/**
 * Creates the database file as it was just before migration `name` (every earlier migration
 * applied), lets `fill` write rows with plain SQL, and closes it: the starting point for testing
 * that a migration carries existing data over.
 */
export async function databaseBefore(
  file: string,
  name: string,
  fill: (sql: (text: string) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const index = MIGRATIONS.findIndex((m) => m.name === name);
  if (index < 0) throw new Error(`No migration named ${name}`);
  const base = ormOptions(file);
  const orm = await MikroORM.init({ ...base, migrations: { ...base.migrations, migrationsList: MIGRATIONS.slice(0, index) } });
  try {
    await orm.getMigrator().up();
    await fill((text) => orm.em.fork().getConnection().execute(text));
  } finally {
    await orm.close(true);
  }
}
