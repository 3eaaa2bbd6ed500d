import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** The Slack thread an intake-made task was reported in, as intake stores it and thread replies read it, on each database. */
describe('task source threads', () => {
  let rt: TestRuntime;
  const task = async (title: string) => String((await rt.exec('create_task', { project_id: 'web', title, description: 'd' })).created);
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
  });
  afterEach(() => rt.cleanup());

  it("finds the newest task reported in a thread, and a task's thread is the last it was reported in", async () => {
    const threads = rt.db.taskSourceThreads;
    const [first, second] = [await task('First'), await task('Second')];
    expect(await threads.taskFor('CINTAKE', '1700000000.000100')).toBeNull();
    await threads.save(first, 'CINTAKE', '1700000000.000100');
    expect(await threads.taskFor('CINTAKE', '1700000000.000100')).toBe(first);
    // Written a moment later, the second task of the same thread is the one a reply goes to.
    await rt.db.em().execute('update task_source_threads set created_at = created_at - 1000 where task_id = ?', [first]);
    await threads.save(second, 'CINTAKE', '1700000000.000100');
    expect(await threads.taskFor('CINTAKE', '1700000000.000100')).toBe(second);
    // Reported again elsewhere, the first task leaves its old thread.
    await threads.save(first, 'COTHER', '1700000000.000200');
    expect(await threads.taskFor('COTHER', '1700000000.000200')).toBe(first);
    const [row] = await rt.db
      .em()
      .execute<Array<{ n: number }>>('select count(*) as n from task_source_threads where task_id = ?', [first]);
    expect(Number(row.n)).toBe(1);
    expect(await threads.taskFor('CINTAKE', '1700000000.000100')).toBe(second);
    expect(await threads.taskFor('CINTAKE', '1700000000.000999')).toBeNull();
  });
});
