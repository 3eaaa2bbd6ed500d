import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

const nextTurn = () => new Promise((r) => setImmediate(r));

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
    await rt.db.tokenUsage.record({ projectId: 'alpha', taskId: t, agentId: 'a1', source: 'agent', inputTokens: 10, outputTokens: 5, cacheReadTokens: 100 });
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
    expect(await rt.exec('get_token_usage', { task_id: 'none' })).toEqual({ task_id: 'none', breakdown: [], total: 0, breakdown_total: 0, next_offset: null });
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

  it('restart_daemon stores the notification, flags the restart and sends SIGTERM only after replying', async () => {
    expect(await rt.exec('restart_daemon')).toEqual({ status: 'restarting', message: 'Daemon restart initiated', reason: 'No reason provided' });
    expect(rt.processController.signals).toEqual([]);
    expect(rt.orchestrator.restartRequested).toBe(true);
    await nextTurn();
    expect(rt.processController.signals).toEqual(['SIGTERM']);
    const [event] = await rt.db.events.recent(1);
    expect(event.type).toBe('daemon_restart');
    expect(event.payload).toEqual({ reason: 'No reason provided', message: '🔄 **Daemon restart initiated** — No reason provided' });

    expect(await rt.exec('restart_daemon', { reason: 'config change' })).toMatchObject({ reason: 'config change' });
    expect((await rt.db.events.recent(1))[0].payload.message).toBe('🔄 **Daemon restart initiated** — config change');
  });

  it('update_and_restart pulls fast-forward only, reinstalls, notifies and restarts', async () => {
    rt.processController.respond = (file) => ({ code: 0, stdout: file === 'git' ? 'Updating 1..2\nFast-forward\n' : 'added 1 package', stderr: '' });
    expect(await rt.exec('update_and_restart', { reason: 'new version' })).toEqual({
      status: 'updating',
      message: 'Update pulled and daemon restart initiated',
      pull_output: 'Updating 1..2\nFast-forward',
      reason: 'new version',
    });
    expect(rt.processController.runs).toEqual([
      { file: 'git', args: ['pull', '--ff-only'], cwd: rt.config.appRoot },
      { file: 'npm', args: ['ci', '--no-audit', '--no-fund'], cwd: rt.config.appRoot },
    ]);
    expect(rt.orchestrator.restartRequested).toBe(true);
    expect(rt.processController.signals).toEqual([]);
    await nextTurn();
    expect(rt.processController.signals).toEqual(['SIGTERM']);
    const [event] = await rt.db.events.recent(1);
    expect(event).toMatchObject({ type: 'daemon_restart', payload: { reason: 'new version', message: expect.stringContaining('new version') } });
  });

  it('update_and_restart stops at a failed pull, with the tail of its output, and does not restart', async () => {
    rt.processController.respond = () => ({ code: 128, stdout: 'x'.repeat(5000), stderr: 'fatal: Not possible to fast-forward, aborting.' });
    const result = await rt.exec('update_and_restart');
    expect(result).toEqual({ error: expect.stringMatching(/^git pull exited non-zero \(code 128\); nothing was changed\. …x+\nfatal: Not possible to fast-forward, aborting\.$/) });
    expect((result.error as string).length).toBeLessThan(1700);
    expect(rt.processController.runs).toHaveLength(1);
    await nextTurn();
    expect(rt.processController.signals).toEqual([]);
    expect(rt.orchestrator.restartRequested).toBe(false);
    expect((await rt.db.events.recent(5)).map((e) => e.type)).not.toContain('daemon_restart');
  });

  it('update_and_restart reports a failed install and does not restart', async () => {
    rt.processController.respond = (file) => (file === 'npm' ? { code: 1, stdout: '', stderr: 'npm ERR! network' } : { code: 0, stdout: 'ok', stderr: '' });
    expect(await rt.exec('update_and_restart')).toEqual({
      error: expect.stringMatching(/^The install \(npm ci\) exited non-zero \(code 1\);.*npm ERR! network$/),
    });
    await nextTurn();
    expect(rt.processController.signals).toEqual([]);
    expect(rt.orchestrator.restartRequested).toBe(false);
  });

  it('marks restart and update as admin commands the model never sees', () => {
    for (const name of ['restart_daemon', 'update_and_restart']) {
      expect(rt.handler.command(name)).toMatchObject({ admin: true, modelAccess: 'excluded' });
    }
  });

  it('refuses restart and update to Slack users outside AQ_ADMINS and allows listed ones', async () => {
    const guarded = await makeTestRuntime({ AQ_ADMINS: 'U1' });
    try {
      for (const name of ['restart_daemon', 'update_and_restart']) {
        for (const source of ['slack', 'chat'] as const) {
          expect(await guarded.handler.execute(name, {}, { source, userId: 'U2' })).toEqual({
            error: `Only workspace admins can run ${name}. Ask an admin, or have one add your Slack user id to AQ_ADMINS.`,
          });
        }
      }
      expect(guarded.processController.runs).toEqual([]);
      expect(await guarded.handler.execute('restart_daemon', {}, { source: 'slack', userId: 'U1' })).toMatchObject({ status: 'restarting' });
      await nextTurn();
      expect(guarded.processController.signals).toEqual(['SIGTERM']);
    } finally {
      await guarded.cleanup();
    }
  });
});
