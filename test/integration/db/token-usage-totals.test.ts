import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTempDir } from '../../support/tmp';

describe('token usage totals migration', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir('aq-migrate-');
  });
  afterEach(() => tmp.cleanup());

  it('backfills the totals from usage rows written before it, then keeps them with triggers', async () => {
    const file = path.join(tmp.dir, 'old.db');
    // A database as it was before the totals existed, with usage history in it.
    const now = Date.now();
    await databaseBefore(file, 'Migration20261123050000_token_usage_totals', async (sql) => {
      await sql(
        `insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'p1', '/w/p1', ${now}, ${now}), ('p2', 'p2', '/w/p2', ${now}, ${now})`,
      );
      await sql(
        `insert into token_usage (project_id, task_id, agent_id, source, tokens, created_at) values
           ('p1', 't1', 'a1', 'agent', 10, ${now}), ('p1', 't1', 'a1', 'agent', 5, ${now}), ('p1', 't1', 'a2', 'agent', 7, ${now}),
           ('p1', 't2', null, 'hook', 1, ${now}), ('p2', 't3', 'a1', 'agent', 100, ${now}), (null, null, null, 'chat', 4, ${now})`,
      );
    });

    const db = await Database.open(file);
    try {
      const conn = db.em().getConnection();
      expect(await conn.execute('select project_id, task_id, agent_id, tokens, entries from token_usage_totals order by 1, 2, 3')).toEqual([
        { project_id: '', task_id: '', agent_id: '', tokens: 4, entries: 1 },
        { project_id: 'p1', task_id: 't1', agent_id: 'a1', tokens: 15, entries: 2 },
        { project_id: 'p1', task_id: 't1', agent_id: 'a2', tokens: 7, entries: 1 },
        { project_id: 'p1', task_id: 't2', agent_id: '', tokens: 1, entries: 1 },
        { project_id: 'p2', task_id: 't3', agent_id: 'a1', tokens: 100, entries: 1 },
      ]);
      expect(await conn.execute('select project_id, tokens, entries, task_agent_rows from token_usage_project_totals order by 1')).toEqual([
        { project_id: '', tokens: 4, entries: 1, task_agent_rows: 1 },
        { project_id: 'p1', tokens: 23, entries: 4, task_agent_rows: 3 },
        { project_id: 'p2', tokens: 100, entries: 1, task_agent_rows: 1 },
      ]);
      // The triggers take over from the backfilled rows.
      await db.tokenUsage.record({ projectId: 'p1', taskId: 't1', agentId: 'a1', source: 'agent', inputTokens: 2, outputTokens: 3 });
      await db.tokenUsage.record({ projectId: 'p1', taskId: 't4', agentId: 'a1', source: 'agent', inputTokens: 1, outputTokens: 0 });
      const page = { limit: 10, offset: 0 };
      expect(await db.tokenUsage.byTaskForProject('p1', page)).toEqual({
        rows: [
          { task_id: 't1', agent_id: 'a1', tokens: 20 },
          { task_id: 't1', agent_id: 'a2', tokens: 7 },
          { task_id: 't2', agent_id: null, tokens: 1 },
          { task_id: 't4', agent_id: 'a1', tokens: 1 },
        ],
        rowCount: 4,
        tokens: 29,
      });
      expect(await db.tokenUsage.byProject(page)).toEqual({
        rows: [
          { project_id: 'p2', tokens: 100 },
          { project_id: 'p1', tokens: 29 },
          { project_id: null, tokens: 4 },
        ],
        rowCount: 3,
        tokens: 133,
      });
    } finally {
      await db.close();
    }
  });
});
