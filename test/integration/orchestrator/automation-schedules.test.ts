// @database-dependent: a schedule's run is claimed by a compare-and-set on next_run_at that must hold across processes.
import { Database } from '../../../src/db/database';
import { AutomationEngine } from '../../../src/orchestrator/automation-engine';
import { EventLog } from '../../../src/orchestrator/events';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { orchestratorCommands } from '../../../src/commands/orchestrator-commands';

describe('schedules', () => {
  let rt: TestRuntime;
  let clock: Date;
  beforeEach(async () => {
    clock = new Date('2026-11-25T10:00:00Z');
    rt = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' }, { now: () => clock });
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const schedule = (extra: Record<string, unknown> = {}) =>
    rt.exec('create_automation', {
      name: 'Hourly',
      kind: 'schedule',
      project_id: 'alpha',
      title: 'Hourly sweep',
      cron: '0 * * * *',
      ...extra,
    });
  const runs = async (id = 'hourly') =>
    (await rt.exec('list_automation_runs', { automation_id: id, limit: 50 })).runs as Array<Record<string, unknown>>;
  const created = async (id = 'hourly') => (await runs(id)).filter((r) => r.outcome === 'created').map((r) => String(r.task_id));

  it('fires when its time comes under the clock, once, and then waits for the next time', async () => {
    await schedule();
    // Created with the real clock: move its next run to the test clock's next hour.
    await rt.db.automations.update('hourly', { nextRunAt: Date.parse('2026-11-25T11:00:00Z') }, Date.now());
    await rt.automations.tick();
    expect(await runs()).toEqual([]);

    clock = new Date('2026-11-25T11:00:00Z');
    await rt.automations.tick();
    await rt.automations.tick();
    expect(await created()).toHaveLength(1);
    expect(await rt.exec('get_automation', { automation_id: 'hourly' })).toMatchObject({ next_run_at: '2026-11-25T12:00:00.000Z' });

    // Missed runs (down from 11:00 to 15:30) fire once, and the next run is after now.
    clock = new Date('2026-11-25T15:30:00Z');
    await rt.exec('set_task_status', { task_id: (await created())[0], status: 'COMPLETED' });
    await rt.automations.tick();
    expect(await created()).toHaveLength(2);
    expect(await rt.exec('get_automation', { automation_id: 'hourly' })).toMatchObject({ next_run_at: '2026-11-25T16:00:00.000Z' });
  });

  it('is fired by exactly one of two processes that tick at the same moment', async () => {
    await schedule();
    await rt.db.automations.update('hourly', { nextRunAt: Date.parse('2026-11-25T10:00:00Z') }, Date.now());
    const other = await Database.open(rt.config.database);
    try {
      const otherEngine = new AutomationEngine({
        db: other,
        events: new EventLog(other),
        commands: orchestratorCommands((name, args) => rt.handler.executeAny(name, args, { source: 'system' })),
        now: () => clock,
        log: () => undefined,
      });
      await Promise.all([rt.automations.tick(), otherEngine.tick(), rt.automations.tick(), otherEngine.tick()]);
    } finally {
      await other.close();
    }
    expect(await created()).toHaveLength(1);
    expect((await rt.exec('list_tasks', { project_id: 'alpha' })).total).toBe(1);
  });

  it('skips while its previous task is open and pauses itself after failures in a row, saying so', async () => {
    await schedule({ max_failures: 2 });
    const at = (iso: string) => rt.db.automations.update('hourly', { nextRunAt: Date.parse(iso) }, Date.now());
    await at('2026-11-25T10:00:00Z');
    await rt.automations.tick();
    const [first] = await created();

    clock = new Date('2026-11-25T11:00:00Z');
    await rt.automations.tick();
    expect((await runs())[0]).toMatchObject({ outcome: 'skipped', reason: `Its previous run's task ${first} is still open (READY).` });

    await rt.exec('set_task_status', { task_id: first, status: 'FAILED' });
    clock = new Date('2026-11-25T12:00:00Z');
    await rt.automations.tick();
    const [second] = await created();
    expect(second).not.toBe(first);
    expect(await rt.exec('get_automation', { automation_id: 'hourly' })).toMatchObject({ consecutive_failures: 1, enabled: true });

    await rt.exec('set_task_status', { task_id: second, status: 'FAILED' });
    clock = new Date('2026-11-25T13:00:00Z');
    await rt.automations.tick();
    expect(await rt.exec('get_automation', { automation_id: 'hourly' })).toMatchObject({
      enabled: false,
      consecutive_failures: 2,
      paused_reason: expect.stringContaining(`It failed 2 times in a row (last: task ${second} failed)`),
    });
    expect(await created()).toHaveLength(2);
    const events = (await rt.exec('get_recent_events', { limit: 50 })).events as Array<{ type: string }>;
    expect(events.filter((e) => e.type === 'automation_paused')).toHaveLength(1);

    expect(await rt.exec('resume_automation', { automation_id: 'hourly' })).toMatchObject({ resumed: 'hourly' });
    expect(await rt.exec('get_automation', { automation_id: 'hourly' })).toMatchObject({ enabled: true, consecutive_failures: 0 });
  });

  it('turns each new item of a discovery command into one task, keyed so a later run skips it', async () => {
    const items = JSON.stringify([
      { number: 7, title: 'Crash on save' },
      { number: 9, title: 'Typo in help' },
    ]);
    await schedule({
      name: 'Triage Issues',
      title: 'Fix #{{event.number}}: {{event.title}}',
      description: 'GitHub issue {{event.number}}',
      discovery_command: `printf '%s' '${items}'`,
      discovery_key: 'number',
    });
    expect(await rt.exec('run_automation', { automation_id: 'triage-issues' })).toMatchObject({
      created: [expect.any(String), expect.any(String)],
    });
    const titles = ((await rt.exec('list_tasks', { project_id: 'alpha' })).tasks as Array<{ title: string }>).map((t) => t.title).sort();
    expect(titles).toEqual(['Fix #7: Crash on save', 'Fix #9: Typo in help']);
    expect(await rt.exec('run_automation', { automation_id: 'triage-issues' })).toMatchObject({
      created: [],
      skipped: [expect.stringContaining('Already handled item:7'), expect.stringContaining('Already handled item:9')],
    });

    await rt.exec('edit_automation', { automation_id: 'triage-issues', discovery_command: 'echo oops >&2; exit 3' });
    expect(await rt.exec('run_automation', { automation_id: 'triage-issues' })).toEqual({
      error: "Automation 'triage-issues' could not run: Its discovery command exited with 3: oops.",
    });
  });
});
