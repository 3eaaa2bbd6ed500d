import { HookEngine } from '../../../src/orchestrator/hooks';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('hook and system commands', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const hook = (extra: Record<string, unknown> = {}) =>
    rt.exec('create_hook', {
      project_id: 'alpha',
      name: 'Nightly Check',
      trigger: { type: 'periodic', interval_seconds: 60 },
      prompt_template: 'Check {{step_0}}',
      ...extra,
    });

  it('creates, lists, edits and deletes hooks with spec defaults', async () => {
    expect(await hook()).toEqual({ created: 'nightly-check', name: 'Nightly Check', project_id: 'alpha' });
    expect(await rt.exec('list_hooks')).toEqual({
      hooks: [
        { id: 'nightly-check', project_id: 'alpha', name: 'Nightly Check', enabled: true, trigger: { type: 'periodic', interval_seconds: 60 }, cooldown_seconds: 3600 },
      ],
    });
    expect(await hook()).toEqual({ error: expect.stringContaining('already exists') });
    expect(await rt.exec('edit_hook', { hook_id: 'nightly-check', enabled: 'false', cooldown_seconds: 5 })).toEqual({
      updated: 'nightly-check',
      fields: ['enabled', 'cooldown_seconds'],
    });
    expect((await rt.exec('list_hooks', { project_id: 'alpha' })).hooks).toEqual([expect.objectContaining({ enabled: false, cooldown_seconds: 5 })]);
    expect(await rt.exec('edit_hook', { hook_id: 'nightly-check' })).toEqual({ error: expect.stringContaining('Nothing to update') });
    expect(await rt.exec('edit_hook', { hook_id: 'ghost', enabled: true })).toEqual({ error: "Hook 'ghost' not found." });
    expect(await rt.exec('delete_hook', { hook_id: 'nightly-check' })).toEqual({ deleted: 'nightly-check', name: 'Nightly Check' });
    expect(await rt.exec('delete_hook', { hook_id: 'nightly-check' })).toEqual({ error: "Hook 'nightly-check' not found." });
  });

  it('refuses triggers that could never fire and unknown projects', async () => {
    expect(await hook({ trigger: { type: 'event', event_type: 'task.completed' } })).toEqual({
      error: expect.stringMatching(/^Unknown event_type "task.completed"\. Valid events: .*task_completed/),
    });
    expect(await hook({ trigger: { type: 'periodic' } })).toEqual({ error: expect.stringContaining('interval_seconds') });
    expect(await hook({ trigger: '{"type": "cron"}' })).toEqual({ error: expect.stringContaining('trigger.type') });
    expect(await hook({ project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await hook({ trigger: { type: 'event', event_type: 'task_failed' } })).toMatchObject({ created: 'nightly-check' });
  });

  it('fires hooks through the engine and lists their runs', async () => {
    await hook({ context_steps: [{ type: 'shell', command: 'echo hi' }] });
    expect(await rt.exec('fire_hook', { hook_id: 'nightly-check' })).toEqual({ error: expect.stringContaining('not enabled in this process') });
    const engine = new HookEngine({
      db: rt.db,
      events: rt.events,
      execute: (name, args) => rt.handler.execute(name, args, { source: 'hook' }),
      runModel: async () => ({ text: 'fine', tokensUsed: 7 }),
    });
    rt.orchestrator.hookEngine = engine;
    expect(await rt.exec('fire_hook', { hook_id: 'nightly-check' })).toEqual({ fired: 'nightly-check', status: 'running' });
    expect(await rt.exec('fire_hook', { hook_id: 'ghost' })).toEqual({ error: "Hook 'ghost' not found." });
    await engine.idle();
    const runs = (await rt.exec('list_hook_runs', { hook_id: 'nightly-check' })) as { hook_name: string; runs: Array<Record<string, unknown>> };
    expect(runs.hook_name).toBe('Nightly Check');
    expect(runs.runs).toEqual([
      {
        id: expect.any(String),
        trigger_reason: 'manual',
        status: 'completed',
        tokens_used: 7,
        skipped_reason: null,
        started_at: expect.stringMatching(/^\d{4}-/),
        completed_at: expect.stringMatching(/^\d{4}-/),
      },
    ]);
    expect(await rt.exec('list_hook_runs', { hook_id: 'ghost' })).toEqual({ error: "Hook 'ghost' not found." });
  });

  it('reports recent events with a default limit of 10', async () => {
    for (let i = 0; i < 12; i++) await rt.exec('pause_project', { project_id: 'alpha' });
    const { events } = (await rt.exec('get_recent_events')) as { events: Array<Record<string, unknown>> };
    expect(events).toHaveLength(10);
    expect(events[0]).toEqual({
      id: expect.any(Number),
      type: 'project_paused',
      project_id: 'alpha',
      task_id: null,
      agent_id: null,
      payload: {},
      created_at: expect.any(String),
    });
    expect(((await rt.exec('get_recent_events', { limit: 3 })) as { events: unknown[] }).events).toHaveLength(3);
  });

  it('sums token usage by task, by project and overall, cache tokens included', async () => {
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 'x', description: 'y' })).created as string;
    await rt.db.tokenUsage.record({ projectId: 'alpha', taskId: t, agentId: 'a1', source: 'agent', inputTokens: 10, outputTokens: 5, cacheReadTokens: 100 });
    await rt.db.tokenUsage.record({ projectId: 'alpha', taskId: t, agentId: 'a1', source: 'agent', inputTokens: 1, outputTokens: 1 });
    await rt.db.tokenUsage.record({ projectId: null, source: 'chat', inputTokens: 3, outputTokens: 4 });
    expect(await rt.exec('get_token_usage', { task_id: t })).toEqual({ task_id: t, breakdown: [{ agent_id: 'a1', tokens: 117, entries: 2 }], total: 117 });
    expect(await rt.exec('get_token_usage', { project_id: 'alpha' })).toEqual({ project_id: 'alpha', breakdown: [{ task_id: t, agent_id: 'a1', tokens: 117 }], total: 117 });
    expect(await rt.exec('get_token_usage')).toEqual({
      breakdown: [
        { project_id: 'alpha', tokens: 117 },
        { project_id: null, tokens: 7 },
      ],
      total: 124,
    });
  });

  it('sets and clears the active project', async () => {
    expect(await rt.exec('set_active_project', { project_id: 'alpha' })).toEqual({ active_project: 'alpha', name: 'alpha' });
    expect(rt.handler.activeProjectId).toBe('alpha');
    expect(await rt.exec('set_active_project', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await rt.exec('set_active_project', { project_id: '' })).toEqual({ active_project: null, message: 'Active project cleared' });
    expect(rt.handler.activeProjectId).toBeNull();
  });

  it('pauses and resumes scheduling and reports status for any other action', async () => {
    expect(await rt.exec('orchestrator_control', { action: 'pause' })).toEqual({ status: 'paused', message: expect.stringContaining('no new tasks will be scheduled') });
    expect(await rt.exec('orchestrator_control', { action: 'status' })).toEqual({ status: 'paused', running_tasks: 0 });
    expect((await rt.exec('get_status')).orchestrator_paused).toBe(true);
    expect(await rt.exec('orchestrator_control', { action: 'resume' })).toEqual({ status: 'running', message: 'Orchestrator resumed' });
    expect(await rt.exec('orchestrator_control', { action: 'whatever' })).toEqual({ status: 'running', running_tasks: 0 });
  });

  it('restart_daemon notifies, flags the restart and sends SIGTERM after replying', async () => {
    expect(await rt.exec('restart_daemon')).toEqual({ status: 'restarting', message: 'Daemon restart initiated', reason: 'No reason provided' });
    expect(rt.processController.signals).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(rt.processController.signals).toEqual(['SIGTERM']);
    expect(rt.orchestrator.restartRequested).toBe(true);
    const [event] = await rt.db.events.recent(1);
    expect(event.payload.message).toBe('🔄 **Daemon restart initiated** — No reason provided');
  });

  it('update_and_restart pulls, installs, then restarts; a failing step is an error and no restart', async () => {
    rt.processController.respond = (file) => ({ code: 0, stdout: file === 'git' ? 'Already up to date.\n' : 'added 1 package', stderr: '' });
    expect(await rt.exec('update_and_restart', { reason: 'new version' })).toEqual({
      status: 'updating',
      message: 'Update pulled and daemon restart initiated',
      pull_output: 'Already up to date.',
      reason: 'new version',
    });
    expect(rt.processController.runs.map((r) => [r.file, ...r.args])).toEqual([
      ['git', 'pull', '--ff-only'],
      ['npm', 'ci', '--no-audit', '--no-fund'],
    ]);
    expect(rt.processController.runs[0].cwd).toBe(rt.config.appRoot);
    await new Promise((r) => setImmediate(r));
    expect(rt.processController.signals).toEqual(['SIGTERM']);

    rt.processController.signals.length = 0;
    rt.processController.respond = (file) => (file === 'git' ? { code: 1, stdout: '', stderr: 'fatal: Not possible to fast-forward' } : { code: 0, stdout: '', stderr: '' });
    expect(await rt.exec('update_and_restart')).toEqual({ error: expect.stringMatching(/^git pull exited with code 1.*fast-forward/) });
    rt.processController.respond = (file) => (file === 'npm' ? { code: 1, stdout: '', stderr: 'npm ERR! network' } : { code: 0, stdout: '', stderr: '' });
    expect(await rt.exec('update_and_restart')).toEqual({ error: expect.stringMatching(/^npm ci \(install\) exited with code 1/) });
    await new Promise((r) => setImmediate(r));
    expect(rt.processController.signals).toEqual([]);
  });

  it('keeps restart and update away from non-admin Slack users', async () => {
    const guarded = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' });
    try {
      for (const name of ['restart_daemon', 'update_and_restart', 'run_command', 'delete_project']) {
        const result = await guarded.handler.execute(name, { command: 'true', working_dir: '.', project_id: 'x' }, { source: 'slack', userId: 'UOTHER' });
        expect(result).toEqual({ error: expect.stringContaining('Only workspace admins') });
      }
      expect(guarded.processController.signals).toEqual([]);
    } finally {
      await guarded.cleanup();
    }
  });
});
