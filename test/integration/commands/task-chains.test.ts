// @database-dependent: chains are read with recursive queries over task_dependencies.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';
import { CHAIN_DOWNSTREAM_SHOWN } from '../../../src/commands/task-dependencies';

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
      depends_on_total: 1,
      dependents_total: 0,
      next_offset: null,
    });
  });

  it('adds and removes edges, refusing self-dependencies, duplicates and cycles', async () => {
    const a = await task('A');
    const b = await task('B');
    const c = await task('C');
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: a.created })).toEqual({
      error: 'A task cannot depend on itself.',
    });
    expect(await rt.exec('add_dependency', { task_id: b.created, depends_on: a.created })).toEqual({
      task_id: b.created,
      depends_on: a.created,
      status: 'DEFINED',
    });
    expect(await rt.exec('add_dependency', { task_id: c.created, depends_on: b.created })).toMatchObject({ status: 'DEFINED' });
    expect(await rt.exec('add_dependency', { task_id: b.created, depends_on: a.created })).toEqual({
      error: expect.stringContaining('already depends'),
    });
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: c.created })).toEqual({
      error: expect.stringContaining('cycle'),
    });
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('remove_dependency', { task_id: b.created, depends_on: a.created })).toEqual({
      task_id: b.created,
      removed: a.created,
      status: 'READY',
    });
    expect(await rt.exec('remove_dependency', { task_id: b.created, depends_on: a.created })).toEqual({
      error: expect.stringContaining('does not depend'),
    });
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
      next_offset: null,
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
      next_offset: null,
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

  it('starts READY when every upstream is done, and keeps waiting while any edge is unmet', async () => {
    const done = await task('Done');
    await rt.exec('set_task_status', { task_id: done.created, status: 'COMPLETED' });
    const open = await task('Open');
    const ready = await task('Ready', [done.created]);
    expect(ready.status).toBe('READY');
    expect(await rt.exec('add_dependency', { task_id: ready.created, depends_on: open.created })).toMatchObject({ status: 'DEFINED' });
    const x = await task('X');
    expect(await rt.exec('add_dependency', { task_id: x.created, depends_on: done.created })).toMatchObject({ status: 'READY' });
    const two = await task('Two', [open.created, x.created]);
    expect(await rt.exec('remove_dependency', { task_id: two.created, depends_on: x.created })).toEqual({
      task_id: two.created,
      removed: x.created,
      status: 'DEFINED',
    });
    expect(await rt.exec('get_task_dependencies', { task_id: open.created })).toEqual({
      task_id: open.created,
      depends_on: [],
      dependents: expect.arrayContaining([
        { id: ready.created, title: 'Ready', status: 'DEFINED' },
        { id: two.created, title: 'Two', status: 'DEFINED' },
      ]),
      depends_on_total: 0,
      dependents_total: 2,
      next_offset: null,
    });
    expect(await rt.exec('get_task_dependencies', { task_id: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('remove_dependency', { task_id: 'ghost', depends_on: x.created })).toEqual({ error: "Task 'ghost' not found." });
  });

  it('refuses a longer cycle', async () => {
    const a = await task('A');
    const b = await task('B', [a.created]);
    const c = await task('C', [b.created]);
    const d = await task('D', [c.created]);
    expect(await rt.exec('add_dependency', { task_id: a.created, depends_on: d.created })).toEqual({
      error: expect.stringContaining('cycle'),
    });
    expect((await rt.exec('get_task_dependencies', { task_id: a.created })).depends_on).toEqual([]);
  });

  it('promotes a task with two upstreams only when the second is skipped too', async () => {
    const a = await task('A');
    const other = await task('Other');
    const both = await task('Both', [a.created, other.created]);
    await rt.exec('set_task_status', { task_id: a.created, status: 'BLOCKED' });
    await rt.exec('set_task_status', { task_id: other.created, status: 'FAILED' });
    expect(await rt.exec('skip_task', { task_id: a.created })).toMatchObject({ unblocked_count: 0, unblocked: [] });
    expect(await rt.exec('skip_task', { task_id: other.created })).toEqual({
      skipped: other.created,
      unblocked_count: 1,
      unblocked: [{ id: both.created, title: 'Both' }],
    });
    expect(await status(both.created)).toBe('READY');
    const skipped = await rt.db.tasks.get(a.created);
    expect(skipped).toMatchObject({ status: 'COMPLETED', skipped: true, completedAt: expect.any(Date) });
    expect(await rt.exec('skip_task', { task_id: a.created })).toEqual({ error: expect.stringContaining('is COMPLETED') });
  });

  it('stop releases the agent and the workspace lock, and reports the stuck chain', async () => {
    const a = await task('A');
    const b = await task('B', [a.created]);
    await rt.db.agents.create({ id: 'a1', name: 'a1', type: 'claude' });
    await rt.db.workspaces.create({ id: 'w1', projectId: 'alpha', name: 'w1', path: '/tmp/w1', sourceType: 'link', repoId: null });
    await rt.db.workspaces.acquire('w1', a.created, 'a1');
    await rt.db.em().getConnection().execute("update agents set state = 'BUSY', current_task = ? where id = 'a1'", [a.created]);
    await putTask(rt.db, a.created, 'IN_PROGRESS', { assignedAgent: 'a1' });
    expect(await rt.exec('stop_task', { task_id: a.created })).toEqual({ stopped: a.created });
    expect(await rt.db.tasks.get(a.created)).toMatchObject({ status: 'BLOCKED', assignedAgent: null });
    expect(await rt.db.agents.get('a1')).toMatchObject({ state: 'IDLE', currentTask: null });
    expect(await rt.db.workspaces.get('w1')).toMatchObject({ lockedByTaskId: null, lockedByAgentId: null });
    const events = (await rt.db.events.recent(2)).map((e) => [e.type, e.taskId]);
    expect(events).toEqual([
      ['chain_stuck', a.created],
      ['task_stopped', a.created],
    ]);
    expect(await rt.exec('stop_task', { task_id: a.created })).toEqual({ error: expect.stringContaining('not IN_PROGRESS') });
    expect(await rt.exec('stop_task', { task_id: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('get_chain_health', { task_id: a.created })).toMatchObject({
      stuck_count: 1,
      stuck_downstream: [{ id: b.created, title: 'B', status: 'DEFINED' }],
    });
  });

  it('lists one stuck chain per BLOCKED task that holds something up, for a named project', async () => {
    const a = await task('A');
    const b = await task('B', [a.created]);
    const lone = await task('Lone');
    const x = await task('X');
    const y = await task('Y', [x.created]);
    const z = await task('Z', [y.created, b.created]);
    for (const id of [a.created, lone.created, x.created]) await rt.exec('set_task_status', { task_id: id, status: 'BLOCKED' });
    const health = (await rt.exec('get_chain_health', { project_id: 'alpha' })) as {
      stuck_chains: Array<{ blocked_task: { id: string }; stuck_downstream: Array<{ id: string }>; stuck_count: number }>;
      total_stuck_chains: number;
    };
    expect(health.total_stuck_chains).toBe(2);
    const byRoot = Object.fromEntries(health.stuck_chains.map((c) => [c.blocked_task.id, c.stuck_downstream.map((s) => s.id)]));
    expect(byRoot).toEqual({ [a.created]: [b.created, z.created], [x.created]: [y.created, z.created] });
    expect(await rt.exec('get_chain_health', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await rt.exec('get_chain_health')).toEqual({ project_id: null, stuck_chains: [], total_stuck_chains: 0, next_offset: null });
  });

  it('shows the nearest stuck tasks of a chain longer than the shown limit, and counts them all', async () => {
    // Two blocked roots (queue order: priority 1, then 2); the first holds a chain of 25 with a
    // COMPLETED task in it, which the count skips and the walk goes through.
    const root = await rt.db.tasks.create({ projectId: 'alpha', title: 'root', description: 'd', priority: 1, status: 'BLOCKED' });
    const chain: string[] = [];
    for (let i = 0; i < CHAIN_DOWNSTREAM_SHOWN + 5; i++) {
      const upstream = chain.at(-1) ?? root.id;
      const status = i === 3 ? 'COMPLETED' : 'DEFINED';
      chain.push((await rt.db.tasks.create({ projectId: 'alpha', title: `c${i}`, description: 'd', status }, [upstream])).id);
    }
    const second = await rt.db.tasks.create({ projectId: 'alpha', title: 'second', description: 'd', priority: 2, status: 'BLOCKED' });
    const behind = await rt.db.tasks.create({ projectId: 'alpha', title: 'behind', description: 'd', status: 'DEFINED' }, [second.id]);
    const stuck = chain.filter((_, i) => i !== 3);

    const first = await rt.exec('get_chain_health', { project_id: 'alpha', limit: 1 });
    expect(first).toEqual({
      project_id: 'alpha',
      stuck_chains: [
        {
          blocked_task: { id: root.id, title: 'root' },
          stuck_downstream: stuck.slice(0, CHAIN_DOWNSTREAM_SHOWN).map((id) => ({ id, title: `c${chain.indexOf(id)}` })),
          stuck_count: CHAIN_DOWNSTREAM_SHOWN + 4,
        },
      ],
      total_stuck_chains: 2,
      next_offset: 1,
    });
    expect((await rt.exec('get_chain_health', { task_id: root.id, limit: 100 })).stuck_count).toBe(CHAIN_DOWNSTREAM_SHOWN + 4);
    expect(await rt.exec('get_chain_health', { project_id: 'alpha', limit: 1, offset: 1 })).toEqual({
      project_id: 'alpha',
      stuck_chains: [
        { blocked_task: { id: second.id, title: 'second' }, stuck_downstream: [{ id: behind.id, title: 'behind' }], stuck_count: 1 },
      ],
      total_stuck_chains: 2,
      next_offset: null,
    });
    expect(await rt.exec('get_chain_health', { project_id: 'alpha', offset: 2 })).toEqual({
      project_id: 'alpha',
      stuck_chains: [],
      total_stuck_chains: 2,
      next_offset: null,
    });
  });

  it("gives a project's chains with their titles exactly as stored, whatever characters they hold", async () => {
    // The project's chains come back from the database as one JSON value (dialect.ts, jsonRows).
    const titles = ['"quoted" \\ back\\slash', 'line\nbreak\ttab', '[1, "x", null]', 'ünïcödé 🚀 \u2028', 'null', '12'];
    const root = await rt.db.tasks.create({ projectId: 'alpha', title: titles[0], description: 'd', status: 'BLOCKED' });
    let upstream = root.id;
    const downstream: Array<{ id: string; title: string }> = [];
    for (const title of titles.slice(1)) {
      upstream = (await rt.db.tasks.create({ projectId: 'alpha', title, description: 'd', status: 'DEFINED' }, [upstream])).id;
      downstream.push({ id: upstream, title });
    }
    expect(await rt.exec('get_chain_health', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      stuck_chains: [
        { blocked_task: { id: root.id, title: titles[0] }, stuck_downstream: downstream.slice(0, CHAIN_DOWNSTREAM_SHOWN), stuck_count: 5 },
      ],
      total_stuck_chains: 1,
      next_offset: null,
    });
  });

  it('returns the newest task result with snake_case keys', async () => {
    const a = await task('A');
    const base = {
      taskId: a.created,
      agentId: 'a1',
      summary: null,
      errorMessage: null,
      filesChanged: null,
      tokensUsed: 1,
      costUsd: 0,
      sessionId: null,
    };
    await rt.db.taskResults.add({ ...base, result: 'FAILED' });
    await rt.db.taskResults.add({ ...base, result: 'COMPLETED', summary: 'done', filesChanged: ['a.ts'] });
    expect(await rt.exec('get_task_result', { task_id: a.created })).toEqual({
      task_id: a.created,
      agent_id: 'a1',
      result: 'COMPLETED',
      summary: 'done',
      error_message: null,
      files_changed: ['a.ts'],
      tokens_used: 1,
      cost_usd: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await rt.exec('get_agent_error', { task_id: a.created })).toMatchObject({
      error_type: 'Unknown error',
      error_message: null,
      agent_summary: 'done',
    });
    expect(await rt.exec('get_agent_error', { task_id: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
  });

  it('promotes dependants when their last unmet upstream is approved or deleted', async () => {
    const a = await task('A');
    const b = await task('B', [a.created]);
    const gone = await task('Gone');
    const c = await task('C', [gone.created]);
    await rt.exec('set_task_status', { task_id: a.created, status: 'AWAITING_APPROVAL' });
    expect(await rt.exec('approve_task', { task_id: a.created })).toEqual({ approved: a.created, title: 'A' });
    expect(await status(b.created)).toBe('READY');
    expect(await rt.exec('delete_task', { task_id: gone.created })).toEqual({ deleted: gone.created, title: 'Gone' });
    expect(await status(c.created)).toBe('READY');
    const [latest] = await rt.db.events.recent(1);
    expect(latest).toMatchObject({ type: 'task_unblocked', taskId: c.created });
  });
});
