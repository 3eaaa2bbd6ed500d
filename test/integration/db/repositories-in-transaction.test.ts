import path from 'node:path';
import type { Database } from '../../../src/db/database';
import { EventRepository } from '../../../src/db/repositories/events';
import { PlanChainRepository } from '../../../src/db/repositories/plan-chains';
import { ReconciliationRepository } from '../../../src/db/repositories/reconciliation';
import { TaskRepository } from '../../../src/db/repositories/tasks';
import { openTestDatabase } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

/**
 * A repository bound to a transaction (as the state machine's `within(tx)` binds one) reads and
 * writes in that transaction: it sees the transaction's own writes, and on SQLite, whose one
 * connection the transaction holds, a read outside it would wait for the transaction to end.
 */
describe('repositories bound to a transaction', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let db: Database;
  let closeDb: () => Promise<void>;
  beforeEach(async () => {
    tmp = await makeTempDir('aq-repo-tx-');
    ({ db, cleanup: closeDb } = await openTestDatabase(tmp.dir));
    await db.projects.create({ id: 'p1', name: 'p1', workspace: path.join(tmp.dir, 'w') });
  });
  afterEach(async () => {
    await closeDb();
    await tmp.cleanup();
  });

  it('see what the transaction wrote, on the transaction, and nothing of it after a rollback', async () => {
    const blocker = await db.tasks.create({ projectId: 'p1', title: 'Blocker', description: 'd', status: 'BLOCKED' });
    const seen = await db
      .transaction(async (tx) => {
        const tasks = new TaskRepository(() => tx);
        const parent = await tasks.create({ projectId: 'p1', title: 'Plan', description: 'd' });
        const step = await tasks.create(
          { projectId: 'p1', title: 'Step', description: 'd', parentTaskId: parent.id, isPlanSubtask: true },
          [blocker.id],
        );
        const answers = {
          listed: (await tasks.list({ projectId: 'p1' }, 10)).tasks.map((t) => t.title).sort(),
          counted: await tasks.countByStatus('p1'),
          downstream: (await tasks.downstream(blocker.id)).map((t) => t.id),
          stuck: (await tasks.projectStuckChains('p1', { limit: 10, offset: 0 }, 5)).chains.map((c) => [c.id, c.stuck.count]),
          steps: (await new PlanChainRepository(() => tx).steps(parent.id)).map((s) => s.id),
          events: await new EventRepository(() => tx).latestId(),
          repairs: await new ReconciliationRepository(() => tx).repairs(),
        };
        expect(answers).toMatchObject({
          listed: ['Blocker', 'Plan', 'Step'],
          counted: { BLOCKED: 1, READY: 2 },
          downstream: [step.id],
          stuck: [[blocker.id, 1]],
          steps: [step.id],
        });
        throw new Error('roll back');
      })
      .catch((err: Error) => err.message);
    expect(seen).toBe('roll back');
    expect((await db.tasks.list({ projectId: 'p1' }, 10)).tasks.map((t) => t.title)).toEqual(['Blocker']);
  });
});
