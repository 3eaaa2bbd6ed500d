import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('dependencies, skip, stop and chain health', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const task = async (title: string, depends_on?: string[]) =>
    (await rt.exec('create_task', { project_id: 'alpha', title, description: 'd', ...(depends_on && { depends_on }) })) as {
      created: string;
      status?: string;
    };
  const status = async (id: string) => (await rt.exec('get_task', { task_id: id })).status;

  it('creates dependent tasks as DEFINED and rejects unknown upstream ids', async () => {
    const a = await task('A');
    const b = await task('B', [a.created]);
    expect(b.status).toBe('DEFINED');
    expect(await status(b.created)).toBe('DEFINED');
    expect(await rt.exec('create_task', { project_id: 'alpha', title: 'x', description: 'y', depends_on: ['ghost'] })).toEqual({
      error: "Cannot depend on task 'ghost': it does not exist.",
    });
    expect(await rt.exec('get_task_dependencies', { task_id: b.created })).toEqual({
      task_id: b.created,
      depends_on: [{ id: a.created, title: 'A', status: 'READY' }],
      dependents: [],
    });
  });

  it('adds and removes edges, refusing self-dependencies, duplicates and cycles', async () => {
    const a = await task('A');
    const b = await task('B');
    const c = await task('C');
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: a.created })).toEqual({ error: 'A task cannot depend on itself.' });
    expect(await rt.exec('add_dependency', { task_id: b.created, depends_on: a.created })).toEqual({ task_id: b.created, depends_on: a.created, status: 'DEFINED' });
    expect(await rt.exec('add_dependency', { task_id: c.created, depends_on: b.created })).toMatchObject({ status: 'DEFINED' });
    expect(await rt.exec('add_dependency', { task_id: b.created, depends_on: a.created })).toEqual({ error: expect.stringContaining('already depends') });
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: c.created })).toEqual({ error: expect.stringContaining('cycle') });
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('remove_dependency', { task_id: b.created, depends_on: a.created })).toEqual({ task_id: b.created, removed: a.created, status: 'READY' });
    expect(await rt.exec('remove_dependency', { task_id: b.created, depends_on: a.created })).toEqual({ error: expect.stringContaining('does not depend') });
  });

  it('skips only BLOCKED or FAILED tasks and promotes dependants whose every upstream is done', async () => {
    const a = await task('A');
    const other = await task('Other');
    const b = await task('B', [a.created]);
    const c = await task('C', [b.created]);
    const both = await task('Both', [a.created, other.created]);
    expect(await rt.exec('skip_task', { task_id: a.created })).toEqual({ error: expect.stringContaining('only BLOCKED or FAILED') });
    await rt.exec('set_task_status', { task_id: a.created, status: 'FAILED' });
    expect(await rt.exec('skip_task', { task_id: a.created })).toEqual({
      skipped: a.created,
      unblocked_count: 1,
      unblocked: [{ id: b.created, title: 'B' }],
    });
    expect(await status(a.created)).toBe('COMPLETED');
    expect(await status(b.created)).toBe('READY');
    expect(await status(c.created)).toBe('DEFINED');
    expect(await status(both.created)).toBe('DEFINED');
    const types = (await rt.db.events.recent(5)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['task_skipped', 'task_unblocked']));
    expect(await rt.exec('skip_task', { task_id: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
  });

  it('stops only running tasks', async () => {
    const a = await task('A');
    expect(await rt.exec('stop_task', { task_id: a.created })).toEqual({ error: expect.stringContaining('not IN_PROGRESS') });
    await rt.exec('set_task_status', { task_id: a.created, status: 'IN_PROGRESS' });
    expect(await rt.exec('stop_task', { task_id: a.created })).toEqual({ stopped: a.created });
    expect(await status(a.created)).toBe('BLOCKED');
  });

  it('reports stuck downstream chains for a task and for the active project', async () => {
    const a = await task('A');
    const b = await task('B', [a.created]);
    const c = await task('C', [b.created]);
    expect(await rt.exec('get_chain_health', { task_id: a.created })).toEqual({
      task_id: a.created,
      status: 'READY',
      stuck_downstream: [],
      message: 'Task is not blocked, so it has no stuck downstream chain.',
    });
    await rt.exec('set_task_status', { task_id: a.created, status: 'BLOCKED' });
    expect(await rt.exec('get_chain_health', { task_id: a.created })).toEqual({
      task_id: a.created,
      title: 'A',
      status: 'BLOCKED',
      stuck_downstream: [
        { id: b.created, title: 'B', status: 'DEFINED' },
        { id: c.created, title: 'C', status: 'DEFINED' },
      ],
      stuck_count: 2,
    });
    rt.handler.activeProjectId = 'alpha';
    expect(await rt.exec('get_chain_health')).toEqual({
      project_id: 'alpha',
      stuck_chains: [
        {
          blocked_task: { id: a.created, title: 'A' },
          stuck_downstream: [
            { id: b.created, title: 'B' },
            { id: c.created, title: 'C' },
          ],
          stuck_count: 2,
        },
      ],
      total_stuck_chains: 1,
    });
    expect(await rt.exec('get_chain_health', { task_id: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
  });

  it('explains agent errors with a classification and truncation', async () => {
    const a = await task('A');
    expect(await rt.exec('get_agent_error', { task_id: a.created })).toEqual({
      task_id: a.created,
      title: 'A',
      status: 'READY',
      retries: '0 / 3',
      message: 'No result recorded yet for this task.',
    });
    expect(await rt.exec('get_task_result', { task_id: a.created })).toEqual({ error: expect.stringContaining('No result recorded') });
    await rt.db.taskResults.add({
      taskId: a.created,
      agentId: 'a1',
      result: 'FAILED',
      summary: 's'.repeat(1500),
      errorMessage: `API Error: 429 rate_limit_error ${'x'.repeat(3000)}`,
      filesChanged: null,
      tokensUsed: 10,
      costUsd: 0.5,
      sessionId: null,
    });
    const explained = (await rt.exec('get_agent_error', { task_id: a.created })) as Record<string, string>;
    expect(explained).toMatchObject({ result: 'FAILED', error_type: 'Rate limit', suggested_fix: expect.any(String) });
    expect(Array.from(explained.error_message)).toHaveLength(2001);
    expect(Array.from(explained.agent_summary)).toHaveLength(1001);
    expect(await rt.exec('get_task_result', { task_id: a.created })).toMatchObject({ result: 'FAILED', tokens_used: 10, cost_usd: 0.5 });
  });
});
