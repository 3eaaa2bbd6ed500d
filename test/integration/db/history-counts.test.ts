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
      expect(await db.hookRuns.runsPage('h1', { limit: 10, offset: 0 })).toEqual({ runs: [], total: 0 });
    } finally {
      await db.close();
    }
  });
});
