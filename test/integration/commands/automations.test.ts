// @database-dependent: automations and their run log are rows written and counted in SQL (dedup keys, rate limits).
import { loadConfig } from '../../../src/config';
import { createRuntime } from '../../../src/runtime';
import { walkCursor } from '../../support/pages';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('automation commands', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' });
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const nightly = (extra: Record<string, unknown> = {}) =>
    rt.exec('create_automation', {
      name: 'Nightly Deps',
      kind: 'schedule',
      project_id: 'alpha',
      title: 'Bump dependencies',
      description: 'Update the lock file and run the tests.',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      ...extra,
    });
  const eventTypes = async () =>
    ((await rt.exec('get_recent_events', { limit: 50 })).events as Array<{ type: string }>)
      .map((e) => e.type)
      .filter((t) => t.startsWith('automation_'));

  it('creates a schedule with its next run in its time zone, lists it and shows it', async () => {
    const created = await nightly();
    expect(created).toMatchObject({
      created: 'nightly-deps',
      kind: 'schedule',
      project_id: 'alpha',
      enabled: true,
      rate_limit_per_hour: 10,
    });
    // 03:00 in Berlin is 02:00 UTC in winter.
    expect(String(created.next_run_at)).toMatch(/T02:00:00\.000Z$/);
    expect(await rt.exec('get_automation', { automation_id: 'nightly-deps' })).toMatchObject({
      settings: { cron: '0 3 * * *', timezone: 'Europe/Berlin', overlap: 'skip' },
      task_template: { title: 'Bump dependencies' },
    });
    expect(await rt.exec('list_automations', { kind: 'schedule' })).toMatchObject({
      automations: [{ id: 'nightly-deps' }],
      total: 1,
      next_offset: null,
    });
    expect(await rt.exec('list_automations', { kind: 'webhook' })).toMatchObject({ automations: [], total: 0 });
  });

  it('answers bad fields with sentences that say what to write', async () => {
    expect(await nightly({ cron: '0 3 * *' })).toEqual({ error: expect.stringContaining('is not a cron expression') });
    expect(await nightly({ timezone: 'Mars/Base' })).toEqual({ error: expect.stringContaining('"Mars/Base" is not a time zone name') });
    expect(await nightly({ channel_id: 'C1' })).toEqual({
      error: 'channel_id is a field of intake automations; this one is a schedule automation.',
    });
    expect(await nightly({ cron: undefined })).toEqual({ error: expect.stringContaining('A schedule needs cron') });
    expect(await rt.exec('create_automation', { name: 'Hook', kind: 'webhook', project_id: 'alpha' })).toEqual({
      error: expect.stringContaining('A webhook automation needs title'),
    });
    expect(
      await rt.exec('create_automation', { name: 'Bugs', kind: 'intake', project_id: 'alpha', channel_id: 'C1', pattern: '(' }),
    ).toEqual({
      error: expect.stringContaining('is not a regular expression'),
    });
    expect(await rt.exec('get_automation', { automation_id: 'nope' })).toEqual({
      error: "Automation 'nope' not found. list_automations shows them all.",
    });
    expect((await rt.exec('list_automations')).total).toBe(0);
  });

  it('shows a webhook secret once, at creation', async () => {
    const created = await rt.exec('create_automation', {
      name: 'CI Red',
      kind: 'webhook',
      project_id: 'alpha',
      title: 'Fix {{event.name}}',
    });
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.webhook_path).toBe('/automations/ci-red/webhook');
    const shown = await rt.exec('get_automation', { automation_id: 'ci-red' });
    expect(JSON.stringify(shown)).not.toContain(String(created.secret));
    expect(shown).toMatchObject({ settings: { secret_set: true } });
  });

  it('leaves creating, editing, pausing and deleting to admins', async () => {
    await nightly();
    const asUser = (name: string, args: Record<string, unknown>) => rt.handler.executeAny(name, args, { source: 'slack', userId: 'U2' });
    for (const [name, args] of [
      ['create_automation', { name: 'x', kind: 'schedule', project_id: 'alpha', title: 't', cron: '* * * * *' }],
      ['edit_automation', { automation_id: 'nightly-deps', rate_limit_per_hour: 1 }],
      ['pause_automation', { automation_id: 'nightly-deps' }],
      ['delete_automation', { automation_id: 'nightly-deps' }],
    ] as const) {
      expect(await asUser(name, args)).toEqual({ error: expect.stringContaining('admin') });
    }
    expect(await asUser('list_automations', {})).toMatchObject({ total: 1 });
    expect(
      await rt.handler.execute(
        'edit_automation',
        { automation_id: 'nightly-deps', rate_limit_per_hour: 1 },
        { source: 'slack', userId: 'UADMIN' },
      ),
    ).toEqual({
      updated: 'nightly-deps',
      fields: ['rate_limit_per_hour'],
    });
  });

  it('runs now, skips while its previous task is open, and logs every firing', async () => {
    await nightly();
    const first = await rt.exec('run_automation', { automation_id: 'nightly-deps' });
    expect(first).toMatchObject({ ran: 'nightly-deps', skipped: [] });
    const [taskId] = first.created as string[];
    expect(await rt.exec('get_task', { task_id: taskId })).toMatchObject({
      title: 'Bump dependencies',
      project_id: 'alpha',
      status: 'READY',
    });

    expect(await rt.exec('run_automation', { automation_id: 'nightly-deps' })).toEqual({
      ran: 'nightly-deps',
      created: [],
      skipped: [`Its previous run's task ${taskId} is still open (READY).`],
    });
    const runs = await rt.exec('list_automation_runs', { automation_id: 'nightly-deps' });
    expect(runs).toMatchObject({
      total: 2,
      runs: [
        { outcome: 'skipped', fired_by: 'manual' },
        { outcome: 'created', task_id: taskId },
      ],
    });
    expect(await eventTypes()).toEqual(['automation_skipped', 'automation_fired']);

    // queue: the next task waits for the open one instead of being skipped.
    await rt.exec('edit_automation', { automation_id: 'nightly-deps', overlap: 'queue' });
    const queued = await rt.exec('run_automation', { automation_id: 'nightly-deps' });
    const [next] = queued.created as string[];
    expect(await rt.exec('get_task', { task_id: next })).toMatchObject({ status: 'DEFINED' });
  });

  it('pages its run log by cursor, each run once in order through ties, with a kept count', async () => {
    await nightly();
    const record = (at: number, reason: string) =>
      rt.db.automations.recordRun({
        automationId: 'nightly-deps',
        at,
        firedBy: 'schedule',
        outcome: 'skipped',
        reason,
        taskId: null,
        dedupKey: null,
      });
    // The first eight share one time: only the id orders them.
    for (let i = 0; i < 13; i++) await record(Date.UTC(2026, 0, 1, 0, i < 8 ? 0 : i), `run ${i}`);
    const conn = rt.db.em().getConnection();
    const expected = (
      (await conn.execute('select id from automation_runs order by at desc, id desc')) as Array<{ id: number | string }>
    ).map((r) => Number(r.id));

    const pages = await walkCursor(rt, 'list_automation_runs', 'runs', { automation_id: 'nightly-deps', limit: 5 }, async () => {
      await record(Date.now(), 'while paging');
    });
    expect(pages.flatMap((p) => p.runs.map((r) => r.id))).toEqual(expected);
    expect(pages.map((p) => [p.runs.length, p.total, p.next_offset])).toEqual([
      [5, 13, 5],
      [5, 14, null],
      [3, 15, null],
    ]);
    expect(await rt.exec('list_automation_runs', { automation_id: 'nightly-deps', limit: 5, offset: 15 })).toMatchObject({
      runs: [{ reason: 'run 0' }],
      total: 16,
      next_offset: null,
      next_cursor: null,
    });
    expect(await rt.exec('list_automation_runs', { automation_id: 'nightly-deps', cursor: 'garbage!' })).toEqual({
      error:
        'That cursor is not one list_automation_runs gave. Use next_cursor from its last reply, or leave cursor out to start at the first page.',
    });

    // The count goes with the automation: its runs cascade and leave no count behind.
    expect(await rt.exec('delete_automation', { automation_id: 'nightly-deps' })).toMatchObject({ deleted: 'nightly-deps' });
    expect(await conn.execute("select name from history_counts where name like 'automation_runs:%'")).toEqual([]);
  });

  it('stops creating at its rate limit, and nothing runs while it is paused', async () => {
    await nightly({ rate_limit_per_hour: 1, overlap: 'queue' });
    expect((await rt.exec('run_automation', { automation_id: 'nightly-deps' })).created).toHaveLength(1);
    expect(await rt.exec('run_automation', { automation_id: 'nightly-deps' })).toMatchObject({
      created: [],
      skipped: ['Rate limit: it already created 1 task(s) in the last hour (limit 1).'],
    });
    expect(await rt.exec('pause_automation', { automation_id: 'nightly-deps', reason: 'holiday' })).toEqual({
      paused: 'nightly-deps',
      name: 'Nightly Deps',
      reason: 'holiday',
    });
    expect(await rt.exec('run_automation', { automation_id: 'nightly-deps' })).toEqual({
      error: "Automation 'nightly-deps' is paused. Resume it with resume_automation first.",
    });
    expect(await rt.exec('get_automation', { automation_id: 'nightly-deps' })).toMatchObject({ enabled: false, paused_reason: 'holiday' });
    expect(await eventTypes()).toContain('automation_paused');
    expect(await rt.exec('resume_automation', { automation_id: 'nightly-deps' })).toMatchObject({ resumed: 'nightly-deps' });
    expect(await rt.exec('delete_automation', { automation_id: 'nightly-deps' })).toEqual({
      deleted: 'nightly-deps',
      name: 'Nightly Deps',
    });
    expect((await rt.exec('list_automations')).total).toBe(0);
  });

  it('holds its rate limit when several processes fire it at once', async () => {
    await nightly({ rate_limit_per_hour: 2, overlap: 'queue' });
    const other = await createRuntime(loadConfig({ AQ_HOME: rt.home, DATABASE_URL: rt.config.databaseUrl }), { log: () => undefined });
    try {
      const fire = (i: number) =>
        i % 2 === 0
          ? rt.exec('run_automation', { automation_id: 'nightly-deps' })
          : other.handler.execute('run_automation', { automation_id: 'nightly-deps' }, { source: 'cli' });
      const results = await Promise.all([0, 1, 2, 3, 4, 5].map(fire));
      const created = results.flatMap((r) => ('created' in r ? (r.created as string[]) : []));
      expect(created).toHaveLength(2);
      expect(results.flatMap((r) => ('skipped' in r ? (r.skipped as string[]) : []))).toEqual(
        Array.from({ length: 4 }, () => 'Rate limit: it already created 2 task(s) in the last hour (limit 2).'),
      );
      expect((await rt.exec('list_tasks', { project_id: 'alpha' })).total).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('skips while the project is over its budget', async () => {
    await nightly();
    await rt.exec('set_budget', { project_id: 'alpha', tokens: 10 });
    await rt.db.tokenUsage.record({ projectId: 'alpha', source: 'chat', inputTokens: 50, outputTokens: 0 });
    const ran = await rt.exec('run_automation', { automation_id: 'nightly-deps' });
    expect(ran).toMatchObject({ created: [], skipped: [expect.stringContaining('Over budget')] });
  });

  it('refuses to run an intake automation by hand', async () => {
    expect(await rt.exec('create_automation', { name: 'Bugs', kind: 'intake', project_id: 'alpha', channel_id: 'C1' })).toMatchObject({
      created: 'bugs',
      channel_id: 'C1',
    });
    expect(await rt.exec('run_automation', { automation_id: 'bugs' })).toEqual({
      error: expect.stringContaining('runs on messages in its channel'),
    });
    expect(await rt.exec('create_automation', { name: 'Bugs 2', kind: 'intake', project_id: 'alpha', channel_id: 'C1' })).toEqual({
      error: "Channel C1 already has intake 'bugs'. Edit that one instead.",
    });
  });

  it('takes an intake proposal once, however many clicks race for it', async () => {
    await rt.exec('create_automation', { name: 'Bugs', kind: 'intake', project_id: 'alpha', channel_id: 'C1', rate_limit_per_hour: 1 });
    const logged = await rt.exec('log_intake_triage', { automation_id: 'bugs', outcome: 'proposed', reason: 'Proposed a bug task.' });
    const create = () =>
      rt.exec('create_intake_task', { automation_id: 'bugs', title: 'Fix it', description: 'd', proposal_run: logged.run_id });
    const results = await Promise.all([
      create(),
      create(),
      rt.exec('dismiss_intake_proposal', { automation_id: 'bugs', proposal_run: logged.run_id }),
    ]);
    const decided = results.filter((r) => !('error' in r));
    expect(decided).toHaveLength(1);
    expect(results.filter((r) => 'error' in r)).toEqual([
      { error: 'This proposal was already created or dismissed.' },
      { error: 'This proposal was already created or dismissed.' },
    ]);
    const tasks = (await rt.exec('list_tasks', { project_id: 'alpha' })).total;
    expect(tasks).toBe('created' in decided[0] ? 1 : 0);
    const runs = (await rt.exec('list_automation_runs', { automation_id: 'bugs' })) as { runs: Array<{ outcome: string }> };
    expect(runs.runs).toHaveLength(1);
  });
});
