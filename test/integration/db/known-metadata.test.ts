import path from 'node:path';
import { Database } from '../../../src/db/database';
import { Project } from '../../../src/db/entities';
import { createTestDatabase, onPostgres } from '../../support/postgres-databases';
import { copyMigratedSqlite } from '../../support/sqlite-template';
import { makeTempDir } from '../../support/tmp';

/** A migrated database of the project's dialect, not opened yet. */
async function migratedDatabase(dir: string): Promise<{ location: string; drop: () => Promise<void> }> {
  if (onPostgres()) {
    const database = await createTestDatabase();
    return { location: database.url, drop: database.drop };
  }
  const file = path.join(dir, 'aq.db');
  await copyMigratedSqlite(file);
  return { location: file, drop: async () => undefined };
}

/**
 * The ORMs a process opens share the entity metadata the first one discovered
 * (src/db/known-metadata.ts), also when they open side by side, and each still works on its own
 * database: with the others open, and after the one that discovered it is closed.
 */
describe('entity metadata discovered once per process', () => {
  it('is discovered by one of the databases opened at once and shared, each reading and writing only its own rows', async () => {
    const tmp = await makeTempDir();
    const names = ['a', 'b', 'c'];
    const targets = await Promise.all(names.map((name) => migratedDatabase(path.join(tmp.dir, name))));
    const opened = (await Promise.all(targets.map((t) => Database.open(t.location)))).map((db, i) => ({ name: names[i], db }));
    try {
      const [first, ...rest] = opened;
      // Compared by identity: a failed toBe would print both metadata graphs.
      for (const other of rest) expect(other.db.orm.getMetadata() === first.db.orm.getMetadata()).toBe(true);

      await Promise.all(
        opened.map(({ name, db }) =>
          db.projects.create({ id: `p-${name}`, name: `Project ${name}`, workspace: path.join(tmp.dir, `ws-${name}`) }),
        ),
      );
      for (const { name, db } of opened) {
        expect((await db.projects.list()).map((p) => p.id)).toEqual([`p-${name}`]);
      }

      await first.db.close();
      opened.shift();
      // Entities are loaded, changed and flushed through the shared metadata after its discoverer closed.
      for (const { name, db } of opened) {
        const em = db.em();
        const project = await em.findOneOrFail(Project, { id: `p-${name}` });
        project.name = `Renamed ${name}`;
        await em.flush();
        expect((await db.projects.get(`p-${name}`))?.name).toBe(`Renamed ${name}`);
        expect(await db.projects.get('p-a')).toBeNull();
      }
      // A database opened later gets the same metadata too.
      const later = await migratedDatabase(path.join(tmp.dir, 'd'));
      targets.push(later);
      const db = await Database.open(later.location);
      opened.push({ name: 'd', db });
      expect(db.orm.getMetadata() === rest[0].db.orm.getMetadata()).toBe(true);
      expect(await db.projects.list()).toEqual([]);
    } finally {
      await Promise.all(opened.map(({ db }) => db.close()));
      await Promise.all(targets.map((t) => t.drop()));
      await tmp.cleanup();
    }
  });
});
