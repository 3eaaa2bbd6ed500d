import { Database } from '../../../src/db/database';
import { adminQuery, createTestDatabase } from '../../support/postgres-databases';

/**
 * How long the app's commits wait for the write-ahead log on PostgreSQL (src/db/postgres-commit.ts):
 * by default as long as SQLite's do (`off`), or what the database URL asks. PostgreSQL only
 * (jest.config.js). The database here is set to wait (`on`) as a server's default would, so an
 * `off` seen is the app's own asking.
 */
describe("the app's commits on PostgreSQL", () => {
  const levelOn = async (url: string): Promise<string> => {
    const db = await Database.open(url, { maxConnections: 2 });
    try {
      const [first] = await db.em().execute<Array<{ synchronous_commit: string }>>('show synchronous_commit');
      // A transaction takes a connection of its own from the pool: it starts with the same level.
      const [inTransaction] = await db.transaction((tx) => tx.execute<Array<{ synchronous_commit: string }>>('show synchronous_commit'));
      expect(inTransaction).toEqual(first);
      return first.synchronous_commit;
    } finally {
      await db.close();
    }
  };

  it('do not wait for the disk unless the database URL asks them to', async () => {
    const made = await createTestDatabase();
    const name = made.url.slice(made.url.lastIndexOf('/') + 1);
    await adminQuery(`alter database ${name} set synchronous_commit = on`);
    try {
      expect(await levelOn(made.url)).toBe('off');
      expect(await levelOn(`${made.url}?synchronous_commit=local`)).toBe('local');
      expect(await levelOn(`${made.url}?synchronous_commit=remote_write`)).toBe('remote_write');
      // What PGOPTIONS sets (pg sends it when the app names no options) still holds.
      const before = process.env.PGOPTIONS;
      process.env.PGOPTIONS = '-c synchronous_commit=on -c application_name=aq-test';
      try {
        expect(await levelOn(made.url)).toBe('on');
      } finally {
        if (before === undefined) delete process.env.PGOPTIONS;
        else process.env.PGOPTIONS = before;
      }
    } finally {
      await adminQuery(`alter database ${name} reset synchronous_commit`);
      await made.drop();
    }
  });
});
