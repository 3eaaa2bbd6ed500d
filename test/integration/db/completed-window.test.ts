import { COMPLETED_SINCE_SQL } from '../../../src/db/repositories/scheduling';
import { onPostgres } from '../../support/postgres-databases';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

const HOUR = 3600_000;
const FINISHED_LONG_AGO = 3000;

/**
 * Every scheduling pass, the daemon's and each worker's, counts the tasks each project completed
 * in the scheduling window. The count reads the window's completions only, through an index,
 * whatever the number of tasks finished before it.
 */
describe('tasks completed in the scheduling window', () => {
  let rt: TestRuntime;
  const now = Date.now();

  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
    await rt.exec('create_project', { name: 'api' });
    const connection = rt.db.em().getConnection();
    const insert = async (rows: Array<[id: string, project: string, status: string, completedAt: number | null]>) => {
      for (let start = 0; start < rows.length; start += 500) {
        const batch = rows.slice(start, start + 500);
        await connection.execute(
          `insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval,
             is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at, completed_at)
           values ${batch.map(() => "(?, ?, 't', 'd', ?, 100, 0, 3, false, false, 0, true, false, ?, ?, ?)").join(', ')}`,
          batch.flatMap(([id, project, status, completedAt]) => [id, project, status, now - 48 * HOUR, now - 48 * HOUR, completedAt]),
        );
      }
    };
    await insert([
      // The history: finished long before the window.
      ...Array.from({ length: FINISHED_LONG_AGO }, (_, i): [string, string, string, number] => [
        `old-${i}`,
        i % 2 ? 'web' : 'api',
        'COMPLETED',
        now - 30 * 24 * HOUR - i,
      ]),
      // In the window: three of web's, one of api's; a failed one and a READY one do not count.
      ['w1', 'web', 'COMPLETED', now - HOUR],
      ['w2', 'web', 'COMPLETED', now - 2 * HOUR],
      ['w3', 'web', 'COMPLETED', now - 23 * HOUR],
      ['a1', 'api', 'COMPLETED', now - 5 * HOUR],
      ['a2', 'api', 'FAILED', now - HOUR],
      ['a3', 'api', 'READY', null],
    ]);
    if (onPostgres()) await connection.execute('analyze tasks');
  });

  afterAll(async () => {
    await rt?.cleanup();
  });

  it('counts each project’s completions in the window only', async () => {
    expect(await rt.db.scheduling.completedSince(new Date(now - 24 * HOUR))).toEqual({ web: 3, api: 1 });
    expect(await rt.db.scheduling.completedSince(new Date(now - 90 * 60_000))).toEqual({ web: 1 });
  });

  it('reads them through the completion-time index, not the finished tasks before the window', async () => {
    const connection = rt.db.em().getConnection();
    const since = now - 24 * HOUR;
    const plan = onPostgres()
      ? ((await connection.execute(`explain ${COMPLETED_SINCE_SQL.replace('?', String(since))}`)) as Array<{ 'QUERY PLAN': string }>).map(
          (r) => r['QUERY PLAN'],
        )
      : ((await connection.execute(`explain query plan ${COMPLETED_SINCE_SQL}`, [since])) as Array<{ detail: string }>).map(
          (r) => r.detail,
        );
    const text = plan.join('\n');
    expect(text).toContain('tasks_completed_window');
    expect(text).not.toMatch(/Seq Scan|SCAN tasks\b(?! USING)/);
  });
});
