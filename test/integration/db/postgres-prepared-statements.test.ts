import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { AppPostgreSqlPlatform } from '../../../src/db/postgres-driver';
import { PostgresStatements } from '../../../src/db/postgres-statements';
import { firstTasksInStatuses, taskPage } from '../../../src/db/repositories/task-pages';
import { projectStuckChains } from '../../../src/db/repositories/stuck-chains';
import { CHAIN_DOWNSTREAM_SHOWN } from '../../../src/commands/task-dependencies';
import { createTestDatabase } from '../../support/postgres-databases';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

interface PgClient {
  connect(): Promise<void>;
  query<Row = Record<string, unknown>>(sql: string): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
}
// pg ships no types; this is the little of it used here.
const { Client } = require('pg') as { Client: new (options: { connectionString: string }) => PgClient };

/**
 * Statements run as named prepared statements on PostgreSQL (src/db/postgres-statements.ts):
 * every answer must be the one the statement gives with its values written in, as it ran
 * before; a text the server will not prepare runs written in, inside a transaction too; the
 * statements kept per connection stay bounded. PostgreSQL only (jest.config.js).
 */
describe('named prepared statements on PostgreSQL', () => {
  const platform = new AppPostgreSqlPlatform();
  let client: PgClient;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    client = new Client({ connectionString: database.url });
    await client.connect();
  });
  afterEach(async () => {
    await client.end();
    await drop();
  });

  const prepared = async () =>
    (await client.query<{ name: string; statement: string }>('select name, statement from pg_prepared_statements order by name')).rows;
  const run = (statements: PostgresStatements, sql: string, params: unknown[] = [], inTransaction = false) =>
    statements.run(client, sql, params, inTransaction, () => platform.formatQuery(sql, params)) as Promise<{ rows: unknown[] }>;
  const written = async (sql: string, params: unknown[]) => (await client.query(platform.formatQuery(sql, params))).rows;

  it('answers as the written-in statement does, for every kind of value, from one prepared statement', async () => {
    const statements = new PostgresStatements();
    const sql = `select ? as text, ? as quoted, ? as small, ? as big, ? as fraction, ? as negative, ? as at,
                        ? as nothing, ? as yes, ? + 1 as sum, length(?) as length, ? = 'x' as equal`;
    const values = (n: number) => [
      `why? it's \\ "${n}" 🚀\u2028`,
      "O'Brien",
      n,
      5_000_000_000 + n,
      n + 0.25,
      -n,
      new Date(1_795_776_170_294 + n),
      null,
      n % 2 === 0,
      n,
      'four',
      'x',
    ];
    for (let n = 0; n < 8; n++) {
      const answer = await run(statements, sql, values(n));
      expect(answer.rows).toEqual(await written(sql, values(n)));
    }
    // The two values of `yes` are written in, so two texts; each was parsed once, for all eight calls.
    const texts = (await prepared()).map((s) => s.statement);
    expect(texts).toHaveLength(2);
    expect(texts.filter((t) => t.includes('true as yes'))).toHaveLength(1);
    expect(texts[0]).toContain('$1 as text');
  });

  it('stores and reads back rows through prepared writes as the written-in ones do', async () => {
    const statements = new PostgresStatements();
    await client.query('create table kept (id text primary key, n bigint, note text, doc jsonb)');
    const rows = [
      ['a', 1, 'plain', '{"k": [1, "x", null]}'],
      ['b', 5_000_000_000, 'nul \u0000 and a lone \ud800 surrogate', '{}'],
      ['c', -7, null, 'null'],
    ];
    for (const row of rows) await run(statements, 'insert into kept (id, n, note, doc) values (?, ?, ?, ?)', row);
    await run(statements, 'update kept set n = n + ? where id in (?, ?)', [10, 'a', 'c']);
    expect((await client.query('select id, n, note, doc from kept order by id')).rows).toEqual([
      { id: 'a', n: '11', note: 'plain', doc: { k: [1, 'x', null] } },
      { id: 'b', n: '5000000000', note: 'nul \uFFFD and a lone \uFFFD surrogate', doc: {} },
      { id: 'c', n: '3', note: null, doc: null },
    ]);
  });

  it('runs a text the server will not prepare written in, and then always written in', async () => {
    const statements = new PostgresStatements();
    const sql = 'select json_build_array(?) as j';
    expect((await run(statements, sql, ['a'])).rows).toEqual([{ j: ['a'] }]);
    expect((await run(statements, sql, ['b'])).rows).toEqual([{ j: ['b'] }]);
    expect(await prepared()).toEqual([]);
  });

  it('inside a transaction, a text the server will not prepare does not abort it', async () => {
    const statements = new PostgresStatements();
    await client.query('create table notes (body text)');
    await client.query('begin');
    await run(statements, 'insert into notes (body) values (?)', ['before'], true);
    expect((await run(statements, 'select json_build_array(?) as j', ['x'], true)).rows).toEqual([{ j: ['x'] }]);
    await run(statements, 'insert into notes (body) values (?)', ['after'], true);
    await client.query('commit');
    expect((await client.query('select body from notes order by body')).rows).toEqual([{ body: 'after' }, { body: 'before' }]);
  });

  it('inside a transaction, statements sent together keep their writes when a first run falls back', async () => {
    const statements = new PostgresStatements();
    await client.query('create table notes (body text)');
    await run(statements, 'insert into notes (body) values (?)', ['proven']);
    await client.query('begin');
    const answers = await Promise.all([
      run(statements, 'insert into notes (body) values (?)', ['one'], true),
      run(statements, 'select json_build_array(?) as j', ['x'], true),
      run(statements, 'insert into notes (body) select ?', ['two'], true),
      run(statements, 'select json_build_array(?, ?) as j', ['y', 'z'], true),
      run(statements, 'insert into notes (body) values (?)', ['three'], true),
    ]);
    expect(answers.map((a) => a.rows)).toEqual([[], [{ j: ['x'] }], [], [{ j: ['y', 'z'] }], []]);
    await client.query('commit');
    expect((await client.query<{ body: string }>('select body from notes order by body')).rows.map((r) => r.body)).toEqual([
      'one',
      'proven',
      'three',
      'two',
    ]);
  });

  it('keeps the most recently used statements of a connection, deallocating the oldest', async () => {
    const statements = new PostgresStatements(3);
    for (let n = 1; n <= 5; n++) expect((await run(statements, `select ? + ${n} as v`, [1])).rows).toEqual([{ v: 1 + n }]);
    expect((await prepared()).map((s) => s.statement)).toEqual([
      'select $1::int4 + 3 as v',
      'select $1::int4 + 4 as v',
      'select $1::int4 + 5 as v',
    ]);
    // The first one, deallocated, is prepared again when it runs again.
    expect((await run(statements, 'select ? + 1 as v', [1])).rows).toEqual([{ v: 2 }]);
    expect(await prepared()).toHaveLength(3);
  });

  it('falls back to written-in statements for good when its prepared ones disappear (a pooler between)', async () => {
    const statements = new PostgresStatements();
    expect((await run(statements, 'select ? as v', ['one'])).rows).toEqual([{ v: 'one' }]);
    await client.query('deallocate all');
    expect((await run(statements, 'select ? as v', ['two'])).rows).toEqual([{ v: 'two' }]);
    expect((await run(statements, 'select ? as w', ['three'])).rows).toEqual([{ w: 'three' }]);
    expect(await prepared()).toEqual([]);
  });

  it('answers with the error of a statement that fails, prepared as written in', async () => {
    const statements = new PostgresStatements();
    await client.query('create table once (id text primary key)');
    await run(statements, 'insert into once (id) values (?)', ['a']);
    await expect(run(statements, 'insert into once (id) values (?)', ['a'])).rejects.toMatchObject({ code: '23505' });
    await expect(client.query(new PostgreSqlPlatform().formatQuery('insert into once (id) values (?)', ['a']))).rejects.toMatchObject({
      code: '23505',
    });
  });
});

describe('the app on PostgreSQL with prepared statements', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  /**
   * Runs `run` twelve times on one connection (a transaction's, whose prepared statements and plans
   * are its own), then reads how the server planned the statements whose text is `like`.
   */
  const plansAfterTwelveRuns = (like: string, run: (tx: SqlEntityManager) => Promise<void>) =>
    rt.db.transaction(async (tx) => {
      for (let i = 0; i < 12; i++) await run(tx);
      return tx.execute<Array<{ custom: number; generic: number; statement: string }>>(
        `select custom_plans as custom, generic_plans as generic, statement from pg_prepared_statements
          where statement like ? and statement not like '%pg_prepared_statements%'`,
        [like],
      );
    });

  it('prepares its reads on the connections it uses, and a transaction’s first unpreparable statement leaves it whole', async () => {
    const { created: id } = (await rt.exec('create_project', { name: 'Prep' })) as { created: string };
    for (let i = 0; i < 3; i++) expect(await rt.exec('get_status', {})).toEqual(expect.objectContaining({ orchestrator_paused: false }));
    await rt.db.transaction(async (em) => {
      await em.execute('update projects set name = ? where id = ?', ['Before', id], 'run');
      expect(await em.execute('select json_build_array(?) as j', ['x'])).toEqual([{ j: ['x'] }]);
      await em.execute('update projects set name = ? where id = ?', ['After', id], 'run');
    });
    expect(await rt.exec('list_projects', {})).toEqual(expect.objectContaining({ projects: [expect.objectContaining({ name: 'After' })] }));
    const named = await rt.db.em().execute<Array<{ n: number }>>('select count(*) as n from pg_prepared_statements');
    expect(Number(named[0].n)).toBeGreaterThan(0);
  });

  it("keeps one plan for a project's chain walk instead of planning it again at every run", async () => {
    await rt.exec('create_project', { name: 'Chains' });
    // 1,500 BLOCKED tasks, each with a task waiting on it: a plan for any page size counted a tenth
    // of them (not the 50 of a page), and so looked dearer than one for the values given.
    const em = rt.db.em();
    await em.execute(
      `insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval,
                          is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at)
       select 'chain-' || i, 'chains', 'Task ' || i, 'd', case when i % 2 = 0 then 'BLOCKED' else 'DEFINED' end, 100, 0, 3,
              false, false, 0, true, false, 1700000000000 + i, 1700000000000 + i
         from generate_series(0, 2999) as i`,
    );
    await em.execute(
      "insert into task_dependencies (task_id, depends_on_id) select 'chain-' || (i + 1), 'chain-' || i from generate_series(0, 2998, 2) as i",
    );
    await em.execute('analyze');
    const plans = await plansAfterTwelveRuns('%with recursive roots%', async (tx) => {
      expect((await projectStuckChains(tx, 'chains', { limit: 50, offset: 0 }, CHAIN_DOWNSTREAM_SHOWN)).total).toBe(1500);
    });
    // The server plans a statement's first five runs with their values, then keeps a plan for any
    // values when it costs no more.
    expect(plans.map(({ custom, generic }) => ({ custom, generic }))).toEqual([{ custom: 5, generic: 7 }]);
    expect(await rt.exec('get_chain_health', { project_id: 'chains' })).toEqual(expect.objectContaining({ total_stuck_chains: 1500 }));
  });

  it("plans a status's list page and get_status's first tasks of each status once, not at every run", async () => {
    await rt.exec('create_project', { name: 'Statuses' });
    // Most tasks done, a few of each other status: a plan for any status looked dearer than one for READY.
    const em = rt.db.em();
    await em.execute(
      `insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval,
                          is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at)
       select 'st-' || i, 'statuses', 'Task ' || i, 'd',
              (array['COMPLETED','COMPLETED','COMPLETED','COMPLETED','COMPLETED','READY','READY','FAILED','BLOCKED','DEFINED'])[i % 10 + 1],
              i % 7, 0, 3, false, false, 0, true, false, 1700000000000 + i, 1700000000000 + i
         from generate_series(0, 5999) as i`,
    );
    await em.execute('analyze');
    const plans = await plansAfterTwelveRuns('%from tasks where status%', async (tx) => {
      expect((await taskPage(tx, { status: 'READY' }, 50)).total).toBe(1200);
      expect((await firstTasksInStatuses(tx, { READY: 5, FAILED: 5 })).FAILED).toHaveLength(5);
    });
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect({ statement: plan.statement, custom: Number(plan.custom) }).toEqual({ statement: plan.statement, custom: 0 });
    }
  });
});
