import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTempDir } from '../../support/tmp';

describe('chain blockers migration', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await makeTempDir('aq-migrate-');
  });
  afterEach(() => tmp.cleanup());

  it('finds the BLOCKED tasks that already held something up, then keeps them as tasks move', async () => {
    const file = path.join(tmp.dir, 'old.db');
    const now = Date.now();
    await databaseBefore(file, 'Migration20261125200200_chain_blockers', async (sql) => {
      await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'p1', '/w/p1', ${now}, ${now})`);
      const task = (id: string, status: string, priority: number) =>
        `('${id}', 'p1', '${id}', 'd', '${status}', ${priority}, ${now}, ${now})`;
      await sql(
        `insert into tasks (id, project_id, title, description, status, priority, created_at, updated_at) values
           ${task('held', 'BLOCKED', 2)}, ${task('done-behind', 'BLOCKED', 1)}, ${task('alone', 'BLOCKED', 0)},
           ${task('waiting', 'DEFINED', 3)}, ${task('finished', 'COMPLETED', 4)}`,
      );
      await sql("insert into task_dependencies (task_id, depends_on_id) values ('waiting', 'held'), ('finished', 'done-behind')");
    });

    const db = await Database.open(file);
    try {
      expect(await db.tasks.blockedHoldingUp('p1', { limit: 10, offset: 0 })).toEqual({ tasks: [{ id: 'held', title: 'held' }], total: 1 });
      await db.tasks.transition('finished', ['COMPLETED'], 'READY');
      expect((await db.tasks.blockedHoldingUp('p1', { limit: 10, offset: 0 })).tasks.map((t) => t.id)).toEqual(['done-behind', 'held']);
      await db.tasks.transition('waiting', ['DEFINED'], 'COMPLETED');
      expect(await db.tasks.blockedHoldingUp('p1', { limit: 10, offset: 0 })).toEqual({
        tasks: [{ id: 'done-behind', title: 'done-behind' }],
        total: 1,
      });
    } finally {
      await db.close();
    }
  });
});
