import { ManualClock } from '../../../src/util/clock';
import { onPostgres } from '../../support/postgres-databases';
import { waitFor } from '../orchestrator/harness';
import { makeFleet, type Fleet } from './fleet-harness';

jest.setTimeout(120_000);

/**
 * An idle worker starts a new task when the database tells it one is READY (PostgreSQL's
 * LISTEN/NOTIFY), not at its next poll. Its clock is a ManualClock nobody moves, so it never polls
 * here: on PostgreSQL only the notice can start the task; on SQLite only moving the clock does.
 */
describe('idle workers wake on new tasks', () => {
  let fleet: Fleet;
  afterEach(async () => {
    await fleet?.cleanup();
  });

  const started = async (taskId: string) =>
    (await fleet.rt.db.events.recent(100)).find((e) => e.type === 'task_started' && e.taskId === taskId);

  async function idleWorker(clock: ManualClock) {
    const w = await fleet.addWorker('alpha', { clock, leaseMs: 600_000 });
    await w.worker.runCycle(); // its first pass found nothing: it is idle from here on
    return w;
  }

  const createTask = async (title: string) =>
    (await fleet.rt.exec('create_task', { project_id: 'web', title, description: `Do: ${title}` })).created as string;

  if (onPostgres()) {
    it('starts a task created while it idles, and again after its listening connection was cut', async () => {
      fleet = await makeFleet();
      const w = await idleWorker(new ManualClock());
      const first = await createTask('Wake me');
      await waitFor(() => started(first), 60_000, 'the notice to start the task');

      const conn = fleet.rt.db.em().getConnection();
      // Only this test's database: suites running beside it have workers listening in theirs.
      const cut: Array<{ pid: number }> = await conn.execute(
        "select pg_terminate_backend(pid) as pid from pg_stat_activity where datname = current_database() and query = 'listen aq_work' and pid <> pg_backend_pid()",
      );
      expect(cut).toHaveLength(1);
      await waitFor(async () => w.logs.some((l) => l.includes('is back')), 60_000, 'the listening connection to come back');
      await waitFor(async () => (await fleet.rt.db.tasks.get(first))?.status === 'COMPLETED', 60_000, 'the first task to complete');
      const second = await createTask('Wake me again');
      await waitFor(() => started(second), 60_000, 'the notice to start the second task');
      expect(w.logs.some((l) => l.includes('was cut'))).toBe(true);
    });
  } else {
    it('on SQLite it starts a task created while it idles at its next poll', async () => {
      fleet = await makeFleet();
      const clock = new ManualClock();
      const w = await idleWorker(clock);
      const id = await createTask('Poll for me');
      await w.worker.runCycle();
      await waitFor(() => started(id), 60_000, 'the pass to start the task');
      expect(
        await fleet.rt.db.listenForWork(
          () => undefined,
          () => undefined,
        ),
      ).toBeNull();
    });
  }
});
