// @database-dependent: events newest first and token sums as integers come from SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('system commands', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  it('get_recent_events returns 10 events by default, newest first, with the event dict keys', async () => {
    for (let i = 0; i < 12; i++) await rt.exec('pause_project', { project_id: 'alpha' });
    await rt.events.emit('task_progress', { projectId: 'alpha', taskId: 't1', agentId: 'a1', payload: { step: 3 } });
    const { events } = (await rt.exec('get_recent_events')) as { events: Array<Record<string, unknown>> };
    expect(events).toHaveLength(10);
    expect(events[0]).toEqual({
      id: expect.any(Number),
      type: 'task_progress',
      project_id: 'alpha',
      task_id: 't1',
      agent_id: 'a1',
      payload: { step: 3 },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(events[1]).toMatchObject({ type: 'project_paused', task_id: null, agent_id: null, payload: {} });
    const ids = events.map((e) => e.id as number);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(((await rt.exec('get_recent_events', { limit: 3 })) as { events: unknown[] }).events).toHaveLength(3);
    expect(((await rt.exec('get_recent_events', { limit: 100 })) as { events: unknown[] }).events).toHaveLength(14);
    expect(await rt.exec('get_recent_events', { limit: 0 })).toEqual({ error: expect.stringContaining('limit') });
  });

  it('get_token_usage sums in SQL by task, by project and overall, as integers', async () => {
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 'x', description: 'y' })).created as string;
    await rt.db.tokenUsage.record({
      projectId: 'alpha',
      taskId: t,
      agentId: 'a1',
      source: 'agent',
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 100,
    });
    await rt.db.tokenUsage.record({ projectId: 'alpha', taskId: t, agentId: 'a1', source: 'agent', inputTokens: 1, outputTokens: 1 });
    await rt.db.tokenUsage.record({ projectId: 'alpha', taskId: t, agentId: 'a2', source: 'agent', inputTokens: 2, outputTokens: 0 });
    await rt.db.tokenUsage.record({ projectId: null, source: 'chat', inputTokens: 3, outputTokens: 4 });
    expect(await rt.exec('get_token_usage', { task_id: t })).toEqual({
      task_id: t,
      breakdown: [
        { agent_id: 'a1', tokens: 117, entries: 2 },
        { agent_id: 'a2', tokens: 2, entries: 1 },
      ],
      total: 119,
      breakdown_total: 2,
      next_offset: null,
    });
    expect(await rt.exec('get_token_usage', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      breakdown: [
        { task_id: t, agent_id: 'a1', tokens: 117 },
        { task_id: t, agent_id: 'a2', tokens: 2 },
      ],
      total: 119,
      breakdown_total: 2,
      next_offset: null,
    });
    expect(await rt.exec('get_token_usage')).toEqual({
      breakdown: [
        { project_id: 'alpha', tokens: 119 },
        { project_id: null, tokens: 7 },
      ],
      total: 126,
      breakdown_total: 2,
      next_offset: null,
    });
    expect(await rt.exec('get_token_usage', { task_id: 'none' })).toEqual({
      task_id: 'none',
      breakdown: [],
      total: 0,
      breakdown_total: 0,
      next_offset: null,
    });
    const mixed = (await rt.exec('get_token_usage', { task_id: t, project_id: 'alpha' })) as { total: number };
    expect(mixed).toMatchObject({ task_id: t, total: 119 });
    expect(Number.isInteger(mixed.total)).toBe(true);
  });

  it('set_active_project sets and clears the focus, refusing unknown projects', async () => {
    expect(await rt.exec('set_active_project', { project_id: 'alpha' })).toEqual({ active_project: 'alpha', name: 'alpha' });
    expect(rt.handler.activeProjectId).toBe('alpha');
    expect((await rt.exec('create_task', { title: 'uses focus', description: 'd' })).project_id).toBe('alpha');
    expect(await rt.exec('set_active_project', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect(rt.handler.activeProjectId).toBe('alpha');
    expect(await rt.exec('set_active_project', { project_id: '' })).toEqual({ active_project: null, message: 'Active project cleared' });
    expect(rt.handler.activeProjectId).toBeNull();
    await rt.exec('set_active_project', { project_id: 'alpha' });
    expect(await rt.exec('set_active_project')).toEqual({ active_project: null, message: 'Active project cleared' });
    expect(rt.handler.activeProjectId).toBeNull();
  });

  it('orchestrator_control pauses and resumes (with events) and reports status for any other action', async () => {
    expect(await rt.exec('orchestrator_control', { action: 'pause' })).toEqual({
      status: 'paused',
      message: 'Orchestrator paused: no new tasks will be scheduled. Running tasks continue.',
    });
    expect(await rt.exec('orchestrator_control', { action: 'status' })).toEqual({ status: 'paused', running_tasks: 0 });
    expect((await rt.exec('get_status')).orchestrator_paused).toBe(true);
    expect(await rt.exec('orchestrator_control', { action: 'RESUME' })).toEqual({ status: 'running', message: 'Orchestrator resumed' });
    expect(await rt.exec('orchestrator_control', { action: 'whatever' })).toEqual({ status: 'running', running_tasks: 0 });
    expect(await rt.exec('orchestrator_control', {})).toEqual({ error: expect.stringContaining('action') });
    const types = (await rt.db.events.recent(2)).map((e) => e.type);
    expect(types).toEqual(['orchestrator_resumed', 'orchestrator_paused']);
  });
});
