import path from 'node:path';
import sqlite3 from 'sqlite3';
import { SqlitePlatform } from '@mikro-orm/sqlite';
import { bindForSqlite, placeholderOffsets, SqliteStatementCache } from '../../../src/db/sqlite-statements';
import { makeTempDir } from '../../support/tmp';

/**
 * Statements prepared once and run with bound values (src/db/sqlite-statements.ts), on a real
 * in-memory SQLite: every answer must be the one the statement gives with its values written in
 * by MikroORM's formatQuery, as it ran before.
 */
describe('prepared SQLite statements', () => {
  let db: sqlite3.Database;
  let cache: SqliteStatementCache;
  const platform = new SqlitePlatform();
  const written = (sql: string, params: unknown[]) => () => platform.formatQuery(sql, params);
  const run = (sql: string, params: unknown[] = []) => cache.run(db, sql, params, written(sql, params));
  const runWritten = (sql: string) =>
    new Promise<unknown[]>((resolve, reject) => db.all(sql, [], (err, rows) => (err ? reject(err) : resolve(rows))));

  beforeEach(async () => {
    db = new sqlite3.Database(':memory:');
    cache = new SqliteStatementCache(4);
    await run('create table t (id integer primary key, tx text, n numeric, i integer, r real, b blob, untyped)');
  });
  afterEach(async () => {
    await cache.finalizeAll();
    // SQLite refuses to close a connection with a statement still prepared: this is the check.
    await new Promise<void>((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
  });

  it('finds the placeholders both readers agree on, and no others', () => {
    expect(placeholderOffsets("select ? from t where tx = 'a' and n in (?, ?)")).toEqual([7, 41, 44]);
    expect(placeholderOffsets('select 1')).toEqual([]);
    for (const sql of [
      "select ? where tx = 'why?'",
      'select "a?" from t where id = ?',
      'select ? -- what?\n',
      'select /* ? */ ?',
      'select ?? from t',
      'select \\? from t',
      'select ?1',
      'select :name, ?',
      'select @name, ?',
      'select $name, ?',
      "select 'unclosed",
      'select [a?b] from t',
    ]) {
      expect([sql, placeholderOffsets(sql)]).toEqual([sql, null]);
    }
  });

  it('gives SQLite the same value a written-in literal gives: type, division, text and comparisons', async () => {
    const values = [
      ...[0, -7, 2147483647, -2147483648, 2147483648, 1_700_000_000_123, -1_700_000_000_123, 1.5, 0.1 + 0.2, -0],
      ...[true, false, null, 'x', "it's", new Date(0), new Date(1_700_000_000_123), new Date(-86_400_000)],
    ];
    for (const value of values) {
      const sql = "select typeof(?) as ty, ? / 1000 as d, ? || '' as tx, quote(?) as q, (? = '1700000000123') as eq";
      const params = [value, value, value, value, value];
      const expected = await runWritten(platform.formatQuery(sql, params));
      expect([value, await run(sql, params)]).toEqual([value, expected]);
    }
  });

  it('stores what a written-in literal stores, in columns of every affinity', async () => {
    const row = [1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_123, Buffer.from('ab'), 1_700_000_000_123];
    const insert = 'insert into t (id, tx, n, i, r, b, untyped) values (?, ?, ?, ?, ?, ?, ?)';
    await run(insert, [1, ...row]);
    await runWritten(platform.formatQuery(insert, [2, ...row]));
    const stored = (await run(
      'select typeof(tx) a, tx, typeof(n) b, typeof(i) c, typeof(r) d, typeof(b) e, b, typeof(untyped) f from t order by id',
    )) as unknown[];
    expect(stored[0]).toEqual(stored[1]);
    expect(stored[0]).toMatchObject({ a: 'text', tx: '1700000000123', f: 'integer' });
  });

  it('writes the values in where binding could not give the same: lists, objects, invalid dates', async () => {
    expect(bindForSqlite('select ?', [7], [new Date(Number.NaN)])).toBeNull();
    expect(bindForSqlite('select ?', [7], [new Date(1_700_000_000_123)])).toEqual({
      sql: 'select +cast(? as integer)',
      values: [1_700_000_000_123],
    });
    expect(bindForSqlite('select ?', [7], [[1, 2]])).toBeNull();
    expect(bindForSqlite('select ?', [7], [{ a: 1 }])).toBeNull();
    expect(bindForSqlite('select ?', [7], [Number.NaN])).toBeNull();
    expect(bindForSqlite('select ?, ?', [7, 10], [1])).toBeNull();
    expect(await run('select count(*) as n from t where id in (?)', [[1, 2, 3]])).toEqual([{ n: 0 }]);
    // formatQuery fills in a `?` in quotes too; that statement keeps being run as it was.
    const quoted = "select ? as v, 'what?' as w";
    expect(await run(quoted, [5, 6])).toEqual(await runWritten(platform.formatQuery(quoted, [5, 6])));
  });

  it('answers a write with lastID and changes, and keeps NUL out of stored text', async () => {
    expect(await run('insert into t (tx) values (?)', ['a\u0000b'])).toEqual({ lastID: 1, changes: 1 });
    expect(await run('insert into t (tx) values (?)', ['c'])).toEqual({ lastID: 2, changes: 1 });
    expect(await run('update t set n = ? where id > ?', [3, 0])).toEqual({ lastID: 2, changes: 2 });
    expect(await run('select tx from t order by id')).toEqual([{ tx: 'a\uFFFDb' }, { tx: 'c' }]);
  });

  it('keeps the most recently used statements, runs them again with new values, and finalizes the rest', async () => {
    for (let i = 0; i < 10; i++) await run('insert into t (i) values (?)', [i]);
    // Eight different statements through a cache of four, each run by calls that overlap.
    const reads = Array.from({ length: 40 }, (_, k) => run(`select count(*) as n${k % 8} from t where i >= ?`, [k % 10]));
    const answers = (await Promise.all(reads)) as Array<Array<Record<string, number>>>;
    expect(answers).toEqual(answers.map((_, k) => [{ [`n${k % 8}`]: 10 - (k % 10) }]));
  });

  it('prepares a statement once for all its values', async () => {
    const prepare = db.prepare.bind(db);
    const prepared: string[] = [];
    db.prepare = ((sql: string, callback: (err: Error | null) => void) => {
      prepared.push(sql);
      return prepare(sql, callback);
    }) as typeof db.prepare;
    for (let i = 0; i < 5; i++) await run('insert into t (i, tx) values (?, ?)', [i, `row ${i}`]);
    for (let i = 0; i < 5; i++) await run('insert into t (i, tx) values (?, ?)', [1_700_000_000_000 + i, `row ${i}`]);
    expect(prepared).toEqual(['insert into t (i, tx) values (?, ?)', 'insert into t (i, tx) values (+cast(? as integer), ?)']);
    expect(await run('select count(distinct i) as n from t')).toEqual([{ n: 10 }]);
  });

  it('reports a statement that does not prepare, and prepares it again on the next call', async () => {
    await expect(run('select * from missing where id = ?', [1])).rejects.toThrow(/no such table: missing/);
    await run('create table missing (id integer)');
    expect(await run('select * from missing where id = ?', [1])).toEqual([]);
  });

  it('reports a failed statement and runs it again afterwards', async () => {
    await run('create table u (id integer primary key)');
    await run('insert into u (id) values (?)', [1]);
    await expect(run('insert into u (id) values (?)', [1])).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await run('insert into u (id) values (?)', [2])).toEqual({ lastID: 2, changes: 1 });
  });

  it('keeps statements that hold no lock: another connection writes and checkpoints the whole log', async () => {
    const tmp = await makeTempDir('aq-statements-');
    const file = path.join(tmp.dir, 'wal.db');
    const mine = new sqlite3.Database(file);
    const other = new sqlite3.Database(file);
    const on = (conn: sqlite3.Database, sql: string) =>
      new Promise<unknown[]>((resolve, reject) => conn.all(sql, [], (err, rows) => (err ? reject(err) : resolve(rows))));
    const kept = new SqliteStatementCache();
    const mineRun = (sql: string, params: unknown[] = []) => kept.run(mine, sql, params, written(sql, params));
    try {
      await on(mine, 'pragma journal_mode = wal');
      await mineRun('create table w (id integer primary key, v text)');
      for (let i = 0; i < 20; i++) await mineRun('insert into w (v) values (?)', [`v${i}`]);
      expect(await mineRun('select count(*) as n from w where v like ?', ['v%'])).toEqual([{ n: 20 }]);
      await expect(mineRun('insert into w (id, v) values (?, ?)', [1, 'again'])).rejects.toThrow(/UNIQUE/);
      // No busy wait is set on `other`: a lock still held by a kept statement would fail it at once.
      await on(other, "insert into w (v) values ('from the other connection')");
      expect(await on(other, 'pragma wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
      expect(await mineRun('select count(*) as n from w where v like ?', ['%'])).toEqual([{ n: 21 }]);
    } finally {
      await kept.finalizeAll();
      for (const conn of [mine, other]) await new Promise<void>((resolve, reject) => conn.close((err) => (err ? reject(err) : resolve())));
      await tmp.cleanup();
    }
  });
});
