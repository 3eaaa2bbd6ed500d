// @database-dependent: hooks and their runs are rows read back through the repositories.
import { FakeAnthropic } from '../../support/fake-anthropic';
import { EVENT_TYPES } from '../../../src/orchestrator/events';
import { walkCursor } from '../../support/pages';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('hook commands', () => {
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

  it('creates a hook with the spec defaults (cooldown 3600, no context steps) and lists it', async () => {
    expect(await hook()).toEqual({ created: 'nightly-check', name: 'Nightly Check', project_id: 'alpha' });
    expect(await rt.exec('list_hooks')).toEqual({
      hooks: [
        {
          id: 'nightly-check',
          project_id: 'alpha',
          name: 'Nightly Check',
          enabled: true,
          trigger: { type: 'periodic', interval_seconds: 60 },
          cooldown_seconds: 3600,
        },
      ],
      total: 1,
      next_offset: null,
    });
    const stored = await rt.db.hookRuns.hook('nightly-check');
    expect(stored).toMatchObject({ contextSteps: [], llmConfig: null, promptTemplate: 'Check {{step_0}}', lastRunAt: null });
  });

  it('stores context steps, cooldown and model settings as given (JSON text accepted too)', async () => {
    await hook({
      name: 'On Failure',
      trigger: '{"type": "event", "event_type": "task_failed"}',
      context_steps: [{ type: 'shell', command: 'git log -1' }],
      cooldown_seconds: '0',
      llm_config: { model: 'claude-x' },
    });
    expect(await rt.db.hookRuns.hook('on-failure')).toMatchObject({
      trigger: { type: 'event', event_type: 'task_failed' },
      contextSteps: [{ type: 'shell', command: 'git log -1' }],
      cooldownSeconds: 0,
      llmConfig: { model: 'claude-x' },
    });
  });

  it('filters list_hooks by project, and says when the project does not exist', async () => {
    await rt.exec('create_project', { name: 'beta' });
    await hook();
    await hook({ project_id: 'beta', name: 'Beta Hook' });
    expect(((await rt.exec('list_hooks', { project_id: 'beta' })).hooks as Array<{ id: string }>).map((h) => h.id)).toEqual(['beta-hook']);
    expect(((await rt.exec('list_hooks')).hooks as unknown[]).length).toBe(2);
    expect(await rt.exec('list_hooks', { project_id: 'gamma' })).toEqual({ error: "Project 'gamma' not found." });
  });

  it('refuses duplicates, unknown projects and triggers that could never fire', async () => {
    await hook();
    expect(await hook()).toEqual({ error: "Hook 'nightly-check' already exists. Pick another name, or use edit_hook." });
    expect(await hook({ name: 'x', project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
    // The original's hooks used dotted names that never matched an event; the valid list is in the error.
    const wrong = await hook({ name: 'x', trigger: { type: 'event', event_type: 'task.completed' } });
    expect(wrong.error).toMatch(/^Unknown event_type "task\.completed"\. Valid events: /);
    for (const type of EVENT_TYPES) expect(wrong.error).toContain(type);
    expect(await hook({ name: 'x', trigger: { type: 'event' } })).toEqual({
      error: expect.stringMatching(/^An event trigger needs event_type, one of: project_created, /),
    });
    expect(await hook({ name: 'x', trigger: { type: 'periodic' } })).toEqual({
      error: expect.stringContaining('interval_seconds greater than 0'),
    });
    expect(await hook({ name: 'x', trigger: { type: 'periodic', interval_seconds: 0 } })).toEqual({
      error: expect.stringContaining('interval_seconds greater than 0'),
    });
    expect(await hook({ name: 'x', trigger: { type: 'periodic', interval_seconds: 60, skip_llm: 'yes' } })).toEqual({
      error: 'trigger.skip_llm must be true or false (got "yes").',
    });
    expect(await hook({ name: 'x', trigger: { type: 'cron' } })).toEqual({
      error: expect.stringContaining('trigger.type must be "periodic"'),
    });
    expect(await hook({ name: 'x', trigger: 'not json' })).toEqual({ error: expect.stringContaining('trigger') });
    // Steps the engine could never run are refused when saved, not each time the hook fires.
    expect(await hook({ name: 'x', context_steps: [{ type: 'read_file', path: 'a' }, { type: 'sql' }] })).toEqual({
      error: 'Context step 1 needs a type, one of shell, read_file, http, git_diff, db_query, create_task (got "sql").',
    });
    expect(await hook({ name: 'x', context_steps: ['git_diff'] })).toEqual({
      error: expect.stringMatching(/^Context step 0 needs a type, .* \(got "git_diff"\)\.$/),
    });
    expect(await hook({ name: 'x', context_steps: [{ type: 'db_query', query: 'constructor' }] })).toEqual({
      error: expect.stringMatching(/^Context step 0 asks for query "constructor"\. Known queries: recent_events, failed_tasks, /),
    });
    expect(await rt.exec('edit_hook', { hook_id: 'nightly-check', context_steps: [{ query: 'status' }] })).toEqual({
      error: expect.stringMatching(/^Context step 0 needs a type, .* \(got no type\)\.$/),
    });
    expect(await hook({ name: 'x', prompt_template: '' })).toEqual({ error: expect.stringContaining('prompt_template') });
    expect(await hook({ name: 'x', cooldown_seconds: -1 })).toEqual({ error: expect.stringContaining('cooldown_seconds') });
    expect(((await rt.exec('list_hooks')).hooks as unknown[]).length).toBe(1);
  });

  it('edits one or more fields, validating a new trigger', async () => {
    await hook();
    expect(await rt.exec('edit_hook', { hook_id: 'nightly-check', enabled: 'false', cooldown_seconds: 5 })).toEqual({
      updated: 'nightly-check',
      fields: ['enabled', 'cooldown_seconds'],
    });
    expect(
      await rt.exec('edit_hook', {
        hook_id: 'nightly-check',
        trigger: { type: 'event', event_type: 'task_completed' },
        context_steps: [],
        prompt_template: 'New',
        llm_config: { model: 'm' },
      }),
    ).toEqual({ updated: 'nightly-check', fields: ['trigger', 'context_steps', 'prompt_template', 'llm_config'] });
    expect(await rt.db.hookRuns.hook('nightly-check')).toMatchObject({
      enabled: false,
      cooldownSeconds: 5,
      trigger: { type: 'event', event_type: 'task_completed' },
      promptTemplate: 'New',
      llmConfig: { model: 'm' },
    });
    // An interval written as text is kept as the number the engine and the card read.
    await rt.exec('edit_hook', { hook_id: 'nightly-check', trigger: '{"type": "periodic", "interval_seconds": "90", "skip_llm": true}' });
    expect((await rt.db.hookRuns.hook('nightly-check'))!.trigger).toEqual({ type: 'periodic', interval_seconds: 90, skip_llm: true });
    expect(await rt.exec('edit_hook', { hook_id: 'nightly-check', trigger: { type: 'event', event_type: 'nope' } })).toEqual({
      error: expect.stringContaining('Unknown event_type "nope"'),
    });
    expect(await rt.exec('edit_hook', { hook_id: 'nightly-check' })).toEqual({
      error: 'Nothing to update: give at least one field to change.',
    });
    expect(await rt.exec('edit_hook', { hook_id: 'ghost', enabled: true })).toEqual({ error: "Hook 'ghost' not found." });
  });

  it('deletes a hook and its runs', async () => {
    await hook();
    const stored = await rt.db.hookRuns.hook('nightly-check');
    await rt.db.hookRuns.startRun(stored!, 'periodic', null);
    expect(await rt.exec('delete_hook', { hook_id: 'nightly-check' })).toEqual({ deleted: 'nightly-check', name: 'Nightly Check' });
    expect(await rt.exec('list_hooks')).toEqual({ hooks: [], total: 0, next_offset: null });
    expect(await rt.exec('delete_hook', { hook_id: 'nightly-check' })).toEqual({ error: "Hook 'nightly-check' not found." });
    expect(await rt.exec('list_hook_runs', { hook_id: 'nightly-check' })).toEqual({ error: "Hook 'nightly-check' not found." });
  });

  it('lists runs newest first, 10 by default, with the exact keys', async () => {
    await hook();
    const stored = (await rt.db.hookRuns.hook('nightly-check'))!;
    for (let i = 0; i < 12; i++) {
      const id = await rt.db.hookRuns.startRun(stored, `periodic ${i}`, null);
      if (i === 0) await rt.db.hookRuns.finishRun(id, { status: 'skipped', skippedReason: 'nothing to do' });
      else if (i < 11) await rt.db.hookRuns.finishRun(id, { status: 'completed', tokensUsed: i });
      // One second apart, so "newest first" has one right answer.
      await rt.db
        .em()
        .getConnection()
        .execute('update hook_runs set started_at = ? where id = ?', [new Date(Date.UTC(2026, 0, 1, 0, 0, i)), id]);
    }
    const all = (await rt.exec('list_hook_runs', { hook_id: 'nightly-check' })) as {
      hook_id: string;
      hook_name: string;
      runs: Array<Record<string, unknown>>;
    };
    expect(all.hook_id).toBe('nightly-check');
    expect(all.hook_name).toBe('Nightly Check');
    expect(all.runs).toHaveLength(10);
    expect(all).toMatchObject({ total: 12, next_offset: 10 });
    expect(all.runs.map((r) => r.trigger_reason)).toEqual(Array.from({ length: 10 }, (_, i) => `periodic ${11 - i}`));
    expect(all.runs[0]).toEqual({
      id: expect.any(String),
      trigger_reason: 'periodic 11',
      status: 'running',
      tokens_used: 0,
      skipped_reason: null,
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      completed_at: null,
    });
    expect(all.runs[1]).toMatchObject({ status: 'completed', tokens_used: 10, completed_at: expect.stringMatching(/^\d{4}-/) });
    const oldest = (await rt.exec('list_hook_runs', { hook_id: 'nightly-check', limit: 20 })) as { runs: Array<Record<string, unknown>> };
    expect(oldest.runs).toHaveLength(12);
    expect(oldest.runs[11]).toMatchObject({
      trigger_reason: 'periodic 0',
      status: 'skipped',
      skipped_reason: 'nothing to do',
      tokens_used: 0,
    });
    expect(((await rt.exec('list_hook_runs', { hook_id: 'nightly-check', limit: 2 })).runs as unknown[]).length).toBe(2);
    expect(await rt.exec('list_hook_runs', { hook_id: 'nightly-check', limit: 0 })).toEqual({ error: expect.stringContaining('limit') });
  });

  it('pages runs by cursor, each once in order through tied start times, while new runs start', async () => {
    await hook();
    const stored = (await rt.db.hookRuns.hook('nightly-check'))!;
    const conn = rt.db.em().getConnection();
    for (let i = 0; i < 15; i++) {
      const id = await rt.db.hookRuns.startRun(stored, `periodic ${i}`, null);
      // The first nine share one start time: only the id orders them.
      await conn.execute('update hook_runs set started_at = ? where id = ?', [new Date(Date.UTC(2026, 0, 1, 0, 0, i < 9 ? 0 : i)), id]);
    }
    const expected = ((await conn.execute('select id from hook_runs order by started_at desc, id desc')) as Array<{ id: string }>).map(
      (r) => r.id,
    );

    const pages = await walkCursor(rt, 'list_hook_runs', 'runs', { hook_id: 'nightly-check', limit: 4 }, async () => {
      await rt.db.hookRuns.startRun(stored, 'while paging', null);
    });
    expect(pages.flatMap((p) => p.runs.map((r) => r.id))).toEqual(expected);
    expect(pages.map((p) => [p.runs.length, p.total, p.next_offset])).toEqual([
      [4, 15, 4],
      [4, 16, null],
      [4, 17, null],
      [3, 18, null],
    ]);
    expect(pages.at(-1)!.next_cursor).toBeNull();

    const refusal = {
      error:
        'That cursor is not one list_hook_runs gave. Use next_cursor from its last reply, or leave cursor out to start at the first page.',
    };
    expect(await rt.exec('list_hook_runs', { hook_id: 'nightly-check', cursor: 'garbage!' })).toEqual(refusal);
    expect(await rt.exec('list_hook_runs', { hook_id: 'nightly-check', cursor: Buffer.from('[1, 2]').toString('base64url') })).toEqual(
      refusal,
    );
    expect(await rt.exec('list_hook_runs', { hook_id: 'nightly-check', cursor: pages[0].next_cursor!, offset: 4 })).toEqual({
      error: 'Give either offset or cursor, not both.',
    });
  });

  it('fires through the hook engine when this process runs the daemon, and says where hooks run otherwise', async () => {
    const fake = await FakeAnthropic.start();
    try {
      await rt.cleanup();
      rt = await makeTestRuntime({ ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: fake.url });
      await rt.exec('create_project', { name: 'alpha' });
      await hook({ context_steps: [{ type: 'shell', command: 'echo hi' }] });
      expect(await rt.exec('fire_hook', { hook_id: 'nightly-check' })).toEqual({
        error: expect.stringMatching(/^The hook engine is not enabled in this process: hooks run inside the app/),
      });
      await rt.startDaemon({ intervalMs: 60_000 });
      fake.enqueue({ text: 'fine', usage: { input_tokens: 5, output_tokens: 2 } });
      expect(await rt.exec('fire_hook', { hook_id: 'ghost' })).toEqual({ error: "Hook 'ghost' not found." });
      expect(await rt.exec('fire_hook', { hook_id: 'nightly-check' })).toEqual({ fired: 'nightly-check', status: 'running' });
      await rt.hooks.idle();
    } finally {
      await fake.close();
    }
    const { runs } = (await rt.exec('list_hook_runs', { hook_id: 'nightly-check' })) as { runs: Array<Record<string, unknown>> };
    expect(runs).toEqual([
      expect.objectContaining({ trigger_reason: 'manual', status: 'completed', tokens_used: 7, skipped_reason: null }),
    ]);
  });
});
