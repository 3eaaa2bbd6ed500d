import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { Database } from '../src/db/database';
import { EVENT_COUNT_STRIPES } from '../src/db/migrations/postgres/event-count-stripes';
import { TOKEN_USAGE_TOTALS_BACKFILL, TOKEN_USAGE_TOTALS_TRIGGERS } from '../src/db/migrations/Migration20261123050000_token_usage_totals';
import { TOKEN_USAGE_TOTALS_TRIGGERS as POSTGRES_TRIGGERS } from '../src/db/migrations/postgres/triggers';
import { postgresDdl } from '../src/db/migrations/portable-migration';

const STATUSES = ['READY', 'READY', 'DEFINED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'FAILED', 'BLOCKED', 'AWAITING_APPROVAL'];

/** Creates `projects` projects (if missing) and a few agents: the shape of a busy installation. */
export async function seedProjects(db: Database, projects: number, workspaceDir: string): Promise<string[]> {
  const ids = Array.from({ length: projects }, (_, i) => `bench-${i}`);
  await db.transaction(async (em) => {
    const now = new Date();
    for (const id of ids) {
      await em.execute(
        'insert into projects (id, name, status, credit_weight, max_concurrent_agents, workspace, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing',
        [id, id, 'ACTIVE', 1, 2, `${workspaceDir}/${id}`, now, now],
      );
    }
    for (let i = 0; i < 20; i++) {
      await em.execute("insert into agents (id, name, type, state, created_at) values (?, ?, 'claude', 'IDLE', ?) on conflict do nothing", [
        `agent-${i}`,
        `agent-${i}`,
        now,
      ]);
    }
  });
  return ids;
}

/** Bulk-inserts `count` tasks spread over the projects, in multi-row statements. */
export async function seedTasks(db: Database, projectIds: string[], count: number, offset = 0): Promise<void> {
  const columns =
    'id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval, is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at';
  const batch = 500;
  await db.transaction(async (em) => {
    for (let start = 0; start < count; start += batch) {
      const rows: string[] = [];
      const params: unknown[] = [];
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const n = offset + i;
        const created = new Date(1_700_000_000_000 + n * 1000);
        rows.push('(?, ?, ?, ?, ?, ?, 0, 3, false, false, 0, true, false, ?, ?)');
        params.push(
          `bench-task-${n}`,
          projectIds[n % projectIds.length],
          `Task number ${n}`,
          `Do thing ${n}`,
          STATUSES[n % STATUSES.length],
          n % 200,
          created,
          created,
        );
      }
      await em.execute(`insert into tasks (${columns}) values ${rows.join(', ')}`, params);
    }
  });
  await analyzeOnPostgres(db, 'tasks');
  // Its count triggers left a dead row version in task_status_counts per insert, all in one
  // transaction: hundreds of pages for a few hundred live rows, which vacuum frees but never gives
  // back, and every count read walks. A queue grown by create_task (a short transaction each) keeps
  // the table at a few pages, as PostgreSQL prunes each page's old versions in place (bench/README.md,
  // "Count rows left by one long transaction"): the seed leaves it so.
  await compactOnPostgres(db, 'task_status_counts');
}

/**
 * Appends usage rows `from`…`to - 1` in one statement (a recursive CTE generates them inside
 * the database, so 1M rows need no JavaScript loop). Row i belongs to task i mod `tasks` (and that
 * task's project, as seedTasks spreads them) and one of 20 agents. The per-row totals trigger is
 * set aside during the load and the totals rebuilt with the migration's own backfill, which
 * ends in the state the trigger keeps (the tests prove both agree); a million trigger runs
 * would make seeding, not reading, the slow part of the bench.
 */
export async function seedTokenUsage(db: Database, projects: number, tasks: number, from: number, to: number): Promise<void> {
  if (to <= from) return;
  const postgres = db.dialect.name === 'postgresql';
  await db.transaction(async (em) => {
    await em.execute(postgres ? 'drop trigger token_usage_totals_insert on token_usage' : 'drop trigger `token_usage_totals_insert`');
    await em.execute(
      `insert into token_usage (project_id, task_id, agent_id, source, input_tokens, output_tokens, tokens, cost_usd, created_at)
       with recursive n(i) as (select ? union all select i + 1 from n where i < ?)
       select 'bench-' || ((i % ?) % ?), 'bench-task-' || (i % ?), 'agent-' || (i % 20), 'agent',
              1000 + i % 500, 200, 1200 + i % 500, 0.01, ? + i * 1000
         from n`,
      [from, to - 1, tasks, projects, tasks, 1_700_000_000_000],
    );
    await em.execute('delete from token_usage_totals');
    await em.execute('delete from token_usage_project_totals');
    for (const sql of TOKEN_USAGE_TOTALS_BACKFILL) await em.execute(postgres ? postgresDdl(sql) : sql);
    await em.execute(postgres ? POSTGRES_TRIGGERS[1] : TOKEN_USAGE_TOTALS_TRIGGERS.token_usage_totals_insert);
  });
}

/** `from`…`to - 1` generated inside the database, as the rows `n(i)` of a recursive CTE. */
const numbers = 'with recursive n(i) as (select cast(? as bigint) union all select i + 1 from n where i < ?)';

/**
 * Appends tasks `from`…`to - 1` in one statement generated inside the database (no JavaScript
 * loop, no bound-parameter batches), so a million tasks seed in seconds. Rows match seedTasks:
 * `bench-task-<n>`, project n mod `projects`, the same status cycle, priority n mod 200, one
 * second apart. SQLite runs the status-count triggers for every row, as on any insert;
 * PostgreSQL loads with them set aside (see `bulkLoad`) and recounts task_status_counts after.
 */
export async function seedTasksInDatabase(db: Database, projects: number, from: number, to: number): Promise<void> {
  if (to <= from) return;
  const status = `case i % ${STATUSES.length} ${STATUSES.map((s, k) => `when ${k} then '${s}'`).join(' ')} end`;
  // Ids in string order land all over the id index: a larger page cache keeps SQLite from rereading it.
  if (db.dialect.name !== 'postgresql') await db.em().getConnection().execute('pragma cache_size = -262144');
  await bulkLoad(
    db,
    'tasks',
    async (em) => {
      await em.execute(
        `insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval,
                          is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at)
       ${numbers}
       select 'bench-task-' || i, 'bench-' || (i % ?), 'Task number ' || i, 'Do thing ' || i, ${status}, i % 200, 0, 3,
              false, false, 0, true, false, ? + i * 1000, ? + i * 1000
         from n`,
        [from, to - 1, projects, 1_700_000_000_000, 1_700_000_000_000],
      );
    },
    async (em) => {
      // A recount of every group is what the per-row trigger would have left (spread over stripes
      // there; one row per group here, which reads the same as every read sums the stripes).
      await em.execute('delete from task_status_counts');
      await em.execute(
        'insert into task_status_counts (project_id, status, n) select project_id, status, count(*) from tasks group by project_id, status',
      );
    },
    ['task_status_counts'],
  );
}

/**
 * Dependency chains of `length` tasks within each project, as plans make them: task n waits on
 * task n - 2 × `projects` (two tasks back in its project, so that a BLOCKED task's next one is
 * unfinished in the seed's status cycle and the chain is stuck) unless it starts a chain. Covers
 * tasks `from`…`to - 1`.
 */
export async function seedDependencyChains(db: Database, projects: number, length: number, from: number, to: number): Promise<void> {
  const step = 2 * projects;
  const first = Math.max(from, step);
  if (to <= first) return;
  await bulkLoad(
    db,
    'task_dependencies',
    async (em) => {
      await em.execute(
        `insert into task_dependencies (task_id, depends_on_id)
       ${numbers}
       select 'bench-task-' || i, 'bench-task-' || (i - ?) from n where (i / ?) % ? <> 0`,
        [first, to - 1, step, step, length],
      );
    },
    async (em) => {
      // The trigger's refresh for every task something waits on; a refresh depends only on the rows as they are now.
      await em.execute(
        `insert into chain_blockers (task_id, project_id, priority, created_at, holds_up)
       select b.id, b.project_id, b.priority, b.created_at,
              b.status = 'BLOCKED' and exists (select 1 from task_dependencies d join tasks t on t.id = d.task_id
                                                where d.depends_on_id = b.id and t.status <> 'COMPLETED')
         from tasks b
        where exists (select 1 from task_dependencies d where d.depends_on_id = b.id)
          and (b.status = 'BLOCKED' or exists (select 1 from chain_blockers c where c.task_id = b.id))
       on conflict (task_id) do update set project_id = excluded.project_id, priority = excluded.priority,
         created_at = excluded.created_at, holds_up = excluded.holds_up`,
      );
    },
    ['chain_blockers'],
  );
}

/** Appends `count` events (task_created-like rows over the seeded tasks), generated in the database. */
export async function seedEvents(db: Database, projects: number, tasks: number, count: number): Promise<void> {
  if (count <= 0) return;
  let before = 0;
  await bulkLoad(
    db,
    'events',
    async (em) => {
      const [last] = await em.execute<Array<{ id: number | string | null }>>('select max(id) as id from events');
      before = Number(last?.id ?? 0);
      await em.execute(
        `insert into events (type, project_id, task_id, payload, created_at)
       ${numbers}
       select 'task_created', 'bench-' || ((i % ?) % ?), 'bench-task-' || (i % ?), '{}', ? + i * 1000 from n`,
        [0, count - 1, tasks, projects, tasks, 1_700_000_000_000],
      );
    },
    async (em) => {
      // The count trigger's stripes, added to for the new rows only (a stripe is not a count of its own ids).
      await em.execute(
        `insert into history_counts (name, n)
       select 'events:' || (id % ${EVENT_COUNT_STRIPES}), count(*) from events where id > ? group by id % ${EVENT_COUNT_STRIPES}
       on conflict (name) do update set n = history_counts.n + excluded.n`,
        [before],
      );
    },
    ['history_counts'],
  );
}

/**
 * Runs `load` in one transaction. On PostgreSQL the table's own row triggers (the kept counts,
 * chain_blockers, the workers' wake-up notice) are set aside for it, since a million trigger runs
 * in one transaction took over ten minutes, and `rebuild` then sets what they keep, one statement
 * each, into the tables named in `rebuilt`; foreign keys are still checked. SQLite runs the
 * triggers, which are cheap there.
 */
async function bulkLoad(
  db: Database,
  table: string,
  load: (em: SqlEntityManager) => Promise<void>,
  rebuild: (em: SqlEntityManager) => Promise<void>,
  rebuilt: string[],
): Promise<void> {
  const postgres = db.dialect.name === 'postgresql';
  await db.transaction(async (em) => {
    if (postgres) await em.execute(`alter table ${table} disable trigger user`);
    await load(em);
    if (!postgres) return;
    await em.execute(`alter table ${table} enable trigger user`);
    await rebuild(em);
  });
  // What `rebuild` wrote grew as much: autovacuum would visit it as well.
  for (const written of [table, ...(postgres ? rebuilt : [])]) await analyzeOnPostgres(db, written);
}

/** Fresh statistics and visibility map on PostgreSQL, as autovacuum would leave them on a table grown this big. */
async function analyzeOnPostgres(db: Database, table: string): Promise<void> {
  if (db.dialect.name === 'postgresql') await db.em().getConnection().execute(`vacuum (analyze) ${table}`);
}

/** A small table rewritten on PostgreSQL without its dead row versions' pages, with fresh statistics. */
async function compactOnPostgres(db: Database, table: string): Promise<void> {
  if (db.dialect.name === 'postgresql') await db.em().getConnection().execute(`vacuum (full, analyze) ${table}`);
}

/**
 * Throws unless what the triggers keep equals a recount of the rows: task_status_counts, the
 * event count stripes and chain_blockers' BLOCKED tasks that hold something up. The seed must
 * leave the database the app would have built, or the bench times reads of the wrong data.
 */
export async function assertSeedCountsExact(db: Database): Promise<void> {
  const conn = db.em().getConnection();
  const differing = async (what: string, kept: string, recount: string) => {
    const [row] = await conn.execute<Array<{ n: number | string }>>(
      `select count(*) as n from (select * from (${kept} except ${recount}) kept_only
                                   union all select * from (${recount} except ${kept}) recount_only) differing`,
    );
    if (Number(row?.n ?? 0) > 0) throw new Error(`The seed left ${what} different from a recount (${row?.n} rows differ).`);
  };
  await differing(
    'task_status_counts',
    'select project_id, status, sum(n) from task_status_counts group by project_id, status having sum(n) <> 0',
    'select project_id, status, count(*) from tasks group by project_id, status',
  );
  await differing('the count of events', "select sum(n) from history_counts where name like 'events:%'", 'select count(*) from events');
  await differing(
    'chain_blockers',
    'select task_id from chain_blockers where holds_up = true',
    `select b.id from tasks b where b.status = 'BLOCKED'
        and exists (select 1 from task_dependencies d join tasks t on t.id = d.task_id where d.depends_on_id = b.id and t.status <> 'COMPLETED')`,
  );
}
