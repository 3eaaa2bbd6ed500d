import { AppLog } from '../../support/app-log';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback } from '../../support/slack-payloads';
import { SLACK_LIMITS } from '../../support/slack-validator';
import { asRead, HOSTILE } from '../../support/hostile';
import { slackFeatureKey } from '../../../src/db/slack-features';

type Cell = { type: string; text?: string; value?: number };
type Block = { type: string; text?: { text: string }; rows?: Cell[][]; page_size?: number; caption?: string };
type View = { type: string; blocks: Block[] };

/**
 * The App Home's ready queue as a data_table, through the real Bolt app against the fake Slack
 * (whose validator holds every table to Slack's data_table rules): a busy queue of 60 tasks shows
 * in full within the Home's 100 blocks; a workspace that refuses the block gets the sections, once.
 */
describe('the App Home queue as a data_table', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let appLog: AppLog;

  beforeEach(async () => {
    appLog = new AppLog();
    app = await startTestApp({}, { log: appLog.log });
    slack = app.slack;
    await exec('create_project', { name: 'web', auto_create_channels: false });
    // Scheduling paused: the 60 tasks stay READY whatever the daemon would do.
    await exec('orchestrator_control', { action: 'pause' });
    for (let i = 1; i <= 60; i += 1)
      await exec('create_task', { project_id: 'web', title: i === 7 ? HOSTILE : `Task number ${i}`, description: 'd', priority: i % 5 });
    slack.clearCalls();
  });
  afterEach(async () => {
    try {
      await app.stop();
    } finally {
      appLog.flush();
    }
  });

  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args, { source: 'system' });
  const openHome = () =>
    FakeSlack.postToApp(
      app.url,
      JSON.stringify(eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home', event_ts: '1700000000.1' })),
      { signingSecret: app.signingSecret, contentType: 'json' },
    );
  const publishes = () => slack.callsTo('views.publish').map((c) => c.args.view as View);
  const slackFeatures = async () => (await exec('get_status')).slack_features as Record<string, Record<string, unknown>> | undefined;

  it('lists all 60 ready tasks in one table, in queue order, within the Home block limit', async () => {
    await openHome();
    await slack.waitFor(() => publishes().length === 1, 'the Home');
    const [home] = publishes();
    expect(home.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.viewBlocks);
    const tables = home.blocks.filter((b) => b.type === 'data_table');
    expect(tables).toHaveLength(1);
    const [header, ...rows] = tables[0].rows!;
    expect(header.map((c) => c.text)).toEqual(['#', 'Task', 'Project', 'Priority', 'Id']);
    expect(rows).toHaveLength(60);
    expect(tables[0]).toMatchObject({ page_size: 20, caption: 'Ready tasks in the order they start' });

    // Queue order is list_tasks' own; every task appears once, the hostile title as literal text.
    const listed = (await exec('list_tasks', { status: 'READY', limit: 100 })).tasks as Array<{ id: string; priority: number }>;
    expect(rows.map((r) => r[4].text)).toEqual(listed.map((t) => t.id));
    expect(rows.map((r) => r[0].value)).toEqual(listed.map((_, i) => i + 1));
    expect(rows.map((r) => r[3].value)).toEqual(listed.map((t) => t.priority));
    expect(rows.some((r) => String(r[1].text) === asRead(HOSTILE))).toBe(true);
    expect(JSON.stringify(home.blocks)).toContain('*Ready queue* · 60');
    // Ten in the sections; here nothing is left out, so no "more waiting" line.
    expect(JSON.stringify(home.blocks)).not.toContain('more tasks waiting');
    // Nothing to record for a table Slack takes: only a refusal is kept (and shown).
    expect((await slackFeatures())?.home_data_table).toBeUndefined();
  });

  it('tries the table again a day after a refusal, and records that Slack takes it now', async () => {
    const dayAndMore = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    await app.started.runtime.db.state.set(slackFeatureKey('home_data_table'), {
      mode: 'fallback',
      method: 'views.publish',
      slack_error: 'invalid_blocks',
      since: dayAndMore,
    });
    await openHome();
    await slack.waitFor(() => publishes().length === 1, 'the Home');
    expect(publishes()[0].blocks.some((b) => b.type === 'data_table')).toBe(true);
    // Recorded once Slack took the view (after the publish the fake saw).
    let mode: unknown;
    let reading: Promise<void> | null = null;
    await slack.waitFor(() => {
      reading ??= slackFeatures().then((f) => {
        mode = f?.home_data_table?.mode;
        reading = null;
      });
      return mode === 'native';
    }, 'the data_table recorded as taken');
    await reading;
  });

  it('publishes the sections instead once Slack refuses the table, and asks no more', async () => {
    const refuseTables = (args: Record<string, unknown>) => {
      const blocks = ((args.view as View | undefined)?.blocks ?? []) as Block[];
      return blocks.some((b) => b.type === 'data_table') ? { ok: false, error: 'invalid_blocks' } : { ok: true, view: args.view };
    };
    slack.setResponse('views.publish', refuseTables);
    await openHome();
    await slack.waitFor(() => publishes().length === 2, 'the Home again without the table');
    const [refused, sections] = publishes();
    expect(refused.blocks.some((b) => b.type === 'data_table')).toBe(true);
    expect(sections.blocks.some((b) => b.type === 'data_table')).toBe(false);
    const body = JSON.stringify(sections.blocks);
    expect(body).toContain('*Ready queue* · 60');
    expect(body).toContain('50 more tasks waiting');
    expect((await slackFeatures())?.home_data_table).toMatchObject({
      mode: 'fallback',
      method: 'views.publish',
      slack_error: 'invalid_blocks',
    });

    // Known from now on: the next Home is the sections at once.
    await openHome();
    await slack.waitFor(() => publishes().length === 3, 'the next Home');
    expect(publishes()[2].blocks.some((b) => b.type === 'data_table')).toBe(false);
    // The operator is told once, in the app's log, not at every Home.
    expect(appLog.take('Slack answered invalid_blocks to views.publish: the App Home lists the queue in sections')).toHaveLength(1);
  });
});
