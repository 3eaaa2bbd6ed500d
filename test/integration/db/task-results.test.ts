import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** What a run's end stores and the readers after it (the next turn, the landing, the card) read back, on each database. */
describe('task results', () => {
  let rt: TestRuntime;
  let taskId: string;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
    taskId = String((await rt.exec('create_task', { project_id: 'web', title: 'T', description: 'd' })).created);
  });
  afterEach(() => rt.cleanup());

  const base = { agentId: 'a-1', summary: null, errorMessage: null, filesChanged: null, tokensUsed: null, costUsd: null, sessionId: null };

  it('reads back the newest as stored: unreported tokens and cost stay unknown, not zero', async () => {
    expect(await rt.db.taskResults.latest(taskId)).toBeNull();
    await rt.db.taskResults.add({
      ...base,
      taskId,
      result: 'FAILED',
      errorMessage: 'boom',
      tokensUsed: 1200,
      costUsd: 0.25,
      sessionId: 's-1',
    });
    await rt.db.taskResults.add({ ...base, taskId, result: 'COMPLETED', summary: 'Done: `x`', filesChanged: ['a.ts', 'dir/b.ts'] });
    const latest = await rt.db.taskResults.latest(taskId);
    expect(latest).toEqual({
      id: expect.any(Number),
      taskId,
      agentId: 'a-1',
      result: 'COMPLETED',
      summary: 'Done: `x`',
      errorMessage: null,
      filesChanged: ['a.ts', 'dir/b.ts'],
      tokensUsed: null,
      costUsd: null,
      sessionId: null,
      createdAt: expect.any(Date),
    });
    expect(Math.abs(latest!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    // The older result had a session: a follow-up resumes it.
    expect(await rt.db.taskResults.lastSessionId(taskId)).toBe('s-1');
  });

  it('reads reported zero tokens and cost as zero, and an empty list of files as empty', async () => {
    await rt.db.taskResults.add({ ...base, taskId, result: 'COMPLETED', tokensUsed: 0, costUsd: 0, filesChanged: [] });
    expect(await rt.db.taskResults.latest(taskId)).toMatchObject({ tokensUsed: 0, costUsd: 0, filesChanged: [] });
    expect(await rt.db.taskResults.lastSessionId(taskId)).toBeNull();
  });
});
