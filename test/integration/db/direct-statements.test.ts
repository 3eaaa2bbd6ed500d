import path from 'node:path';
import { IsolationLevel, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { Database } from '../../../src/db/database';
import { isSqliteRunStatement } from '../../../src/db/sqlite-statements';
import { openTestDatabase } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

/**
 * Raw statements run on the driver's own connection (src/db/direct-statements.ts), not through
 * knex: what knex did for them must still hold on both databases.
 */
describe("raw statements on the driver's connection", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let db: Database;
  let closeDb: () => Promise<void>;
  beforeEach(async () => {
    tmp = await makeTempDir('aq-direct-');
    ({ db, cleanup: closeDb } = await openTestDatabase(tmp.dir));
    await db.projects.create({ id: 'p1', name: 'p1', workspace: path.join(tmp.dir, 'w') });
  });
  afterEach(async () => {
    await closeDb();
    await tmp.cleanup();
  });

  const names = async () => (await db.em().execute<Array<{ name: string }>>('select name from projects order by name')).map((r) => r.name);

  it('answers a write with its changed rows, a read with its rows, and `get` with the first row', async () => {
    const em = db.em();
    const insert = await em.execute(
      "insert into system_state (key, value, updated_at) values ('k1', ?, 1), ('k2', ?, 1)",
      ['"a"', '"b"'],
      'run',
    );
    expect(insert).toMatchObject({ affectedRows: 2 });
    const update = await em.execute("update system_state set value = ? where key in ('k1', 'k2', 'none')", ['"c"'], 'run');
    expect(update).toMatchObject({ affectedRows: 2 });
    expect(await em.execute("select key from system_state where key like 'k%' order by key")).toEqual([{ key: 'k1' }, { key: 'k2' }]);
    expect(await em.execute("select key from system_state where key like 'k%' order by key desc", [], 'get')).toEqual({ key: 'k2' });
    // An update with `returning` answers with the rows it changed, as the ORM's own statements expect.
    const returned = await em.execute("update system_state set value = ? where key = 'k1' returning key", ['"d"'], 'run');
    expect(returned).toMatchObject({ affectedRows: 1, row: { key: 'k1' } });
    expect(await em.execute("delete from system_state where key like 'k%'", [], 'run')).toMatchObject({ affectedRows: 2 });
  });

  it('keeps values whole: question marks, quotes and backslashes, and NUL as the replacement character', async () => {
    const text = "why? it's \\? a \\\\ back\u0000slash";
    await db.em().execute("update projects set name = ? where id = 'p1'", [text], 'run');
    expect(await names()).toEqual([text.replace('\u0000', '\uFFFD')]);
  });

  it('runs inside the transaction it is given: a rollback takes its writes back', async () => {
    await expect(
      db.transaction(async (em) => {
        await em.execute(
          "insert into projects (id, name, status, credit_weight, max_concurrent_agents, workspace, created_at, updated_at) values ('p2', 'p2', 'ACTIVE', 1, 1, '/w', 1, 1)",
          [],
          'run',
        );
        // Read inside the transaction: the row is there.
        expect((await em.execute<Array<{ n: number }>>("select count(*) as n from projects where id = 'p2'"))[0]).toMatchObject({ n: 1 });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await names()).toEqual(['p1']);
    await db.transaction(async (em) => {
      await em.execute("update projects set name = 'renamed' where id = 'p1'", [], 'run');
    });
    expect(await names()).toEqual(['renamed']);
  });

  it('nests a transaction as a savepoint: its rollback takes back its own writes only', async () => {
    await db.transaction(async (em) => {
      await em.execute("update projects set name = 'outer' where id = 'p1'", [], 'run');
      await expect(
        em.transactional(async (inner) => {
          await inner.execute("update projects set name = 'inner' where id = 'p1'", [], 'run');
          expect((await inner.execute<Array<{ name: string }>>("select name from projects where id = 'p1'"))[0].name).toBe('inner');
          throw new Error('undo inner');
        }),
      ).rejects.toThrow('undo inner');
      expect((await em.execute<Array<{ name: string }>>("select name from projects where id = 'p1'"))[0].name).toBe('outer');
      await em.transactional(async (inner) => {
        await inner.execute("update projects set status = 'PAUSED' where id = 'p1'", [], 'run');
      });
    });
    expect(await db.projects.get('p1')).toMatchObject({ name: 'outer', status: 'PAUSED' });
  });

  it('leaves a transaction with an isolation level (PostgreSQL) to knex, with the same outcome', async () => {
    await db.em().transactional(
      async (em) => {
        await em.execute("update projects set name = 'isolated' where id = 'p1'", [], 'run');
        await em.transactional(async (inner) => {
          await inner.execute("update projects set status = 'PAUSED' where id = 'p1'", [], 'run');
        });
      },
      // SQLite's transactions are all serializable: knex ignores the level there, and says so on the console.
      db.dialect.name === 'postgresql' ? { isolationLevel: IsolationLevel.SERIALIZABLE } : {},
    );
    expect(await db.projects.get('p1')).toMatchObject({ name: 'isolated', status: 'PAUSED' });
  });

  it('runs the ORM inside a transaction: its reads and writes see and make the same transaction', async () => {
    const task = await db.tasks.create({ projectId: 'p1', title: 'T', description: 'd' });
    const updated = await db.tasks.update(task.id, { title: 'T2', priority: 5 });
    expect(updated?.before.title).toBe('T');
    expect(await db.tasks.get(task.id)).toMatchObject({ title: 'T2', priority: 5 });
  });

  it('refuses a statement on a finished transaction, and reports a broken constraint as the ORM names it', async () => {
    let finished: SqlEntityManager | null = null;
    await db.transaction(async (em) => {
      finished = em;
    });
    await expect((finished as SqlEntityManager | null)?.execute('select 1 as one')).rejects.toThrow(/already complete/);
    const duplicate = `insert into projects (id, name, status, credit_weight, max_concurrent_agents, workspace, created_at, updated_at)
      values ('p1', 'again', 'ACTIVE', 1, 1, '/w', 1, 1)`;
    await expect(db.em().execute(duplicate, [], 'run')).rejects.toBeInstanceOf(UniqueConstraintViolationException);
  });

  it('chooses run or all by the words the dialect goes by', () => {
    expect(isSqliteRunStatement('  insert into t values (1)')).toBe(true);
    expect(isSqliteRunStatement('UPDATE t set a = 1')).toBe(true);
    expect(isSqliteRunStatement('delete from t')).toBe(true);
    expect(isSqliteRunStatement('insert into t values (1) returning id')).toBe(false);
    expect(isSqliteRunStatement('update t set a = 1 RETURNING a')).toBe(false);
    expect(isSqliteRunStatement('select 1')).toBe(false);
    expect(isSqliteRunStatement('with x as (select 1) update t set a = 1')).toBe(false);
  });
});
