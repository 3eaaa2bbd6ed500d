import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { openOrm, shippedMigrationNames } from '../../../src/db/orm';
import { adminQuery, onPostgres, SERVER_URL_VARIABLE } from '../../support/postgres-databases';
import { makeTempDir } from '../../support/tmp';

/** A database with no tables at all (not a copy of the migrated template), and its removal. */
async function newEmptyDatabase(): Promise<{ location: string; remove: () => Promise<void> }> {
  if (onPostgres()) {
    const name = `aq_empty_${randomBytes(6).toString('hex')}`;
    await adminQuery(`create database ${name}`);
    return {
      location: `${process.env[SERVER_URL_VARIABLE]}/${name}`,
      remove: () => adminQuery(`drop database if exists ${name} with (force)`),
    };
  }
  const tmp = await makeTempDir('aq-one-connection-');
  return { location: path.join(tmp.dir, 'aq.db'), remove: tmp.cleanup };
}

describe('a process allowed one database connection, as `aq exec` is', () => {
  it('migrates a new database, then works on that connection', async () => {
    const database = await newEmptyDatabase();
    try {
      const orm = await openOrm(database.location, { maxConnections: 1 });
      try {
        const applied = await orm.em.getConnection().execute<Array<{ name: string }>>('select name from mikro_orm_migrations');
        expect(applied.map((r) => r.name).sort()).toEqual(await shippedMigrationNames());
      } finally {
        await orm.close(true);
      }
    } finally {
      await database.remove();
    }
  });
});
