import type { HookDefinition } from '../../../src/db/repositories/hook-runs';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** A hook's launches and the records of its runs, as the engine writes them, on each database. */
describe('hook runs', () => {
  let rt: TestRuntime;
  let hook: HookDefinition;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
    const created = await rt.exec('create_hook', {
      project_id: 'web',
      name: 'nightly',
      trigger: { type: 'periodic', interval_seconds: 3600 },
      prompt_template: 'Look',
    });
    hook = (await rt.db.hookRuns.enabledHooks()).find((h) => h.id === created.created) as HookDefinition;
  });
  afterEach(() => rt.cleanup());

  it('launches once within the cooldown, again after it, and at once when forced', async () => {
    const at = Date.UTC(2026, 10, 29, 12);
    expect(await rt.db.hookRuns.claimLaunch(hook.id, new Date(at), 60, false)).toBe(true);
    expect(await rt.db.hookRuns.claimLaunch(hook.id, new Date(at + 59_999), 60, false)).toBe(false);
    expect(await rt.db.hookRuns.claimLaunch(hook.id, new Date(at + 60_000), 60, false)).toBe(true);
    expect(await rt.db.hookRuns.claimLaunch(hook.id, new Date(at + 60_001), 60, true)).toBe(true);
    expect(await rt.db.hookRuns.claimLaunch('no-such-hook', new Date(at), 60, true)).toBe(false);
    const reread = (await rt.db.hookRuns.enabledHooks()).find((h) => h.id === hook.id);
    expect(reread?.lastRunAt).toEqual(new Date(at + 60_001));
  });

  it('stores a run as it starts and ends, its event and context as JSON, and fails the runs a stopped daemon left', async () => {
    const event = { type: 'task_completed', title: 'Quote " and \\ backslash', nested: { n: 1 } };
    const done = await rt.db.hookRuns.startRun(hook, 'event', event);
    const left = await rt.db.hookRuns.startRun(hook, 'periodic', null);
    await rt.db.hookRuns.finishRun(done, {
      status: 'completed',
      contextResults: [{ step: 'shell', output: 'ok' }],
      promptSent: 'Look',
      llmResponse: 'Seen.',
      tokensUsed: 42,
    });
    expect(await rt.db.hookRuns.failAbandonedRuns()).toBe(1);
    expect(await rt.db.hookRuns.failAbandonedRuns()).toBe(0);

    const page = await rt.exec('list_hook_runs', { hook_id: hook.id });
    expect(page).toMatchObject({ total: 2 });
    const runs = new Map((page.runs as Array<{ id: string }>).map((r) => [r.id, r]));
    expect(runs.get(done)).toMatchObject({ trigger_reason: 'event', status: 'completed', tokens_used: 42, skipped_reason: null });
    expect(runs.get(left)).toMatchObject({ trigger_reason: 'periodic', status: 'failed', tokens_used: 0 });

    const stored = await rt.db
      .em()
      .execute<Array<{ id: string; event_data: unknown; context_results: unknown; llm_response: string | null; completed_at: unknown }>>(
        'select id, event_data, context_results, llm_response, completed_at from hook_runs order by id',
      );
    const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
    const byId = new Map(stored.map((r) => [r.id, r]));
    expect(json(byId.get(done)?.event_data)).toEqual(event);
    expect(json(byId.get(done)?.context_results)).toEqual([{ step: 'shell', output: 'ok' }]);
    expect(byId.get(left)?.event_data).toBeNull();
    expect(byId.get(left)?.context_results).toBeNull();
    expect(byId.get(left)?.llm_response).toBe('Interrupted: the daemon stopped during this run.');
    expect(Number(byId.get(left)?.completed_at)).toBeGreaterThan(0);
  });

  it('lists, counts, changes and deletes hooks as stored', async () => {
    await rt.exec('create_project', { name: 'api' });
    await rt.exec('create_hook', {
      project_id: 'api',
      name: 'on-done',
      trigger: { type: 'event', event_type: 'task_completed' },
      prompt_template: 'Done: {{event.title}}',
      context_steps: [{ type: 'shell', command: 'echo hi' }],
      cooldown_seconds: 30,
      llm_config: { model: 'fast' },
    });
    expect(await rt.db.hooks.count()).toBe(2);
    expect(await rt.db.hooks.count('api')).toBe(1);
    expect(await rt.db.hooks.list()).toEqual([
      {
        id: hook.id,
        projectId: 'web',
        name: 'nightly',
        enabled: true,
        trigger: { type: 'periodic', interval_seconds: 3600 },
        cooldownSeconds: 3600,
      },
      {
        id: 'on-done',
        projectId: 'api',
        name: 'on-done',
        enabled: true,
        trigger: { type: 'event', event_type: 'task_completed' },
        cooldownSeconds: 30,
      },
    ]);
    expect(await rt.db.hooks.list(undefined, { limit: 1, offset: 1 })).toEqual([expect.objectContaining({ id: 'on-done' })]);

    expect(await rt.db.hooks.update('on-done', { enabled: false, cooldownSeconds: 5, llmConfig: null, contextSteps: [] })).toBe(true);
    expect(await rt.db.hooks.update('no-such-hook', { enabled: false })).toBe(false);
    expect(await rt.db.hookRuns.hook('on-done')).toMatchObject({
      enabled: false,
      cooldownSeconds: 5,
      llmConfig: null,
      contextSteps: [],
      promptTemplate: 'Done: {{event.title}}',
      trigger: { type: 'event', event_type: 'task_completed' },
    });
    expect((await rt.db.hookRuns.enabledHooks()).map((h) => h.id)).toEqual([hook.id]);
    expect(await rt.db.hooks.delete('on-done')).toBe(true);
    expect(await rt.db.hooks.delete('on-done')).toBe(false);
    expect(await rt.db.hooks.count()).toBe(1);
  });
});
