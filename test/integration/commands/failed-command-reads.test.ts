import { countStatements } from '../../support/statement-counter';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * A command that fails at once (a task not found) answers only after the reads it started beside
 * that check have ended. `aq exec` holds one database connection: reads left running after the
 * answer met the next command, or the close, and on a loaded machine the close waited on them
 * for ever (the process then ended with code 0, its command unfinished).
 */
describe('a command that fails fast, on one connection', () => {
  let rt: TestRuntime;
  afterEach(async () => {
    await rt?.cleanup();
  });

  it('answers once every read it started has answered', async () => {
    rt = await makeTestRuntime({}, { maxDatabaseConnections: 1 });
    await rt.exec('create_project', { name: 'web' });
    const statements = countStatements(rt.db);
    try {
      // get_task reads the task, its usage, its room and its place in the merge train at once.
      const answer = await rt.handler.execute('get_task', { task_id: 'no-such-task' }, { source: 'system' });
      expect(answer).toEqual({ error: expect.stringMatching(/not found/) });
      // It did read beside the check, and nothing it started is still running.
      expect(statements.count).toBeGreaterThan(1);
      expect(statements.running).toBe(0);
    } finally {
      statements.stop();
    }
  });
});
