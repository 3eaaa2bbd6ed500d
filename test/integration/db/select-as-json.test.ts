import type { Database } from '../../../src/db/database';
import { selectAsJson } from '../../../src/db/repositories/run-sql';
import { openTestDatabase } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

/**
 * Rows read back as one JSON value (`selectAsJson`, `dialect.jsonRows`), with and without the
 * aggregate's own order, on both databases.
 */
describe('selectAsJson', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let db: Database;
  let closeDb: () => Promise<void>;
  const keys = ['b-2', 'B1', 'a', 'a-1', 'a1', 'é', 'Z', '_x', 'line\u2028"q"\\'];

  beforeEach(async () => {
    tmp = await makeTempDir('aq-json-rows-');
    ({ db, cleanup: closeDb } = await openTestDatabase(tmp.dir));
    for (const [i, key] of keys.entries()) {
      await db.em().execute('insert into system_state (key, value, updated_at) values (?, ?, ?)', [key, '1', i % 3], 'run');
    }
  });
  afterEach(async () => {
    await closeDb();
    await tmp.cleanup();
  });

  it('gives the rows in the order asked for, as the database itself orders them', async () => {
    const ordered = await db.em().execute<Array<{ key: string }>>('select key from system_state order by updated_at desc, key');
    const tuples = await selectAsJson<[string, number]>(
      db.em(),
      ['key', 'updated_at'],
      'select key, updated_at from system_state',
      [],
      ['updated_at desc', 'key'],
    );
    expect(tuples.map(([key]) => key)).toEqual(ordered.map((r) => r.key));
    expect(new Set(tuples.map(([key]) => key))).toEqual(new Set(keys));
    expect(tuples.find(([key]) => key.startsWith('line'))).toEqual(['line\u2028"q"\\', 2]);
  });

  it('gives no rows as an empty list, with or without an order', async () => {
    const none = 'select key, updated_at from system_state where key = ?';
    expect(await selectAsJson(db.em(), ['key', 'updated_at'], none, ['absent'])).toEqual([]);
    expect(await selectAsJson(db.em(), ['key', 'updated_at'], none, ['absent'], ['key'])).toEqual([]);
  });
});
