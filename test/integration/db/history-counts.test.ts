import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTempDir } from '../../support/tmp';

describe('history counts migration', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir('aq-migrate-');
  });
  afterEach(() => tmp.cleanup());

  it('counts events and hook runs written before it, then keeps the counts through inserts and cascades', async () => {
    const file = path.join(tmp.dir, 'old.db');
    const now = Date.now();
    await databaseBefore(file, 'Migration20261123051000_history_counts', async (sql) => {
      await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'p1', '/w/p1', ${now}, ${now})`);
      await sql(
        `insert into hooks (id, project_id, name, \`trigger\`, context_steps, prompt_template, created_at, updated_at) values
           ('h1', 'p1', 'h1', '{}', '[]', 'x', ${now}, ${now}), ('h2', 'p1', 'h2', '{}', '[]', 'x', ${now}, ${now})`,
      );
      await sql(
        `insert into hook_runs (id, hook_id, project_id, trigger_reason, started_at) values
           ('r1', 'h1', 'p1', 'periodic', ${now}), ('r2', 'h1', 'p1', 'periodic', ${now + 1}), ('r3', 'h2', 'p1', 'manual', ${now})`,
      );
      await sql(`insert into events (type, created_at) values ('a', ${now}), ('b', ${now}), ('c', ${now}), ('d', ${now})`);
    });

    const db = await Database.open(file);
    try {
      const conn = db.em().getConnection();
      // The events' count is split over stripes since migration …_event_count_stripes.
      expect(await conn.execute("select name, n from history_counts where name like 'hook_runs:%' order by name")).toEqual([
        { name: 'hook_runs:h1', n: 2 },
        { name: 'hook_runs:h2', n: 1 },
      ]);
      expect(await db.events.count()).toBe(4);
      await db.events.append({ type: 'e', projectId: null, taskId: null, agentId: null, payload: {}, origin: null });
      expect(await db.events.count()).toBe(5);
      const h1 = (await db.hookRuns.hook('h1'))!;
      await db.hookRuns.startRun(h1, 'manual', null);
      expect(await db.hookRuns.runsPage('h1', { limit: 2, offset: 0 })).toMatchObject({ total: 3, runs: [{}, {}] });
      expect((await db.hookRuns.runsPage('h1', { limit: 2, offset: 2 })).runs.map((r) => r.id)).toEqual(['r1']);
      // Deleting a project cascades to its hooks and their runs; their counts go with them.
      await db.projects.delete('p1');
      expect(await conn.execute("select name, n from history_counts where name like 'hook_runs:%'")).toEqual([]);
      expect(await db.events.count()).toBe(5);
      expect(await db.hookRuns.runsPage('h1', { limit: 10, offset: 0 })).toEqual({ runs: [], total: 0, more: false });
    } finally {
      await db.close();
    }
  });

  it('counts automation runs written before the log keyset migration, pages them by cursor, and keeps the count', async () => {
    const file = path.join(tmp.dir, 'old.db');
    const now = Date.now();
    await databaseBefore(file, 'Migration20261126040000_log_keyset_order', async (sql) => {
      await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'p1', '/w/p1', ${now}, ${now})`);
      for (const id of ['a1', 'a2']) {
        await sql(
          `insert into automations (id, name, kind, project_id, task_template, settings, created_at, updated_at)
             values ('${id}', '${id}', 'webhook', 'p1', '{}', '{}', ${now}, ${now})`,
        );
      }
      await sql(
        `insert into automation_runs (automation_id, at, fired_by, outcome) values
           ('a1', ${now}, 'webhook', 'skipped'), ('a1', ${now}, 'webhook', 'skipped'), ('a1', ${now + 1}, 'webhook', 'failed'),
           ('a2', ${now}, 'manual', 'skipped')`,
      );
    });

    const db = await Database.open(file);
    try {
      const conn = db.em().getConnection();
      expect(await conn.execute("select name, n from history_counts where name like 'automation_runs:%' order by name")).toEqual([
        { name: 'automation_runs:a1', n: 3 },
        { name: 'automation_runs:a2', n: 1 },
      ]);
      const first = await db.automations.runsPage('a1', { limit: 2, offset: 0 });
      expect(first).toMatchObject({ total: 3, more: true, runs: [{ id: 3 }, { id: 2 }] });
      expect(await db.automations.runsPage('a1', { limit: 2, offset: 0, after: { at: now, id: 2 } })).toMatchObject({
        total: 3,
        more: false,
        runs: [{ id: 1 }],
      });
      await db.automations.recordRun({
        automationId: 'a2',
        at: now,
        firedBy: 'manual',
        outcome: 'skipped',
        reason: null,
        taskId: null,
        dedupKey: null,
      });
      expect((await db.automations.runsPage('a2', { limit: 5, offset: 0 })).total).toBe(2);
      await db.projects.delete('p1');
      expect(await conn.execute("select name from history_counts where name like 'automation_runs:%'")).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
