import type { StartedApp } from '../../../src/app';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { blockActions } from '../../support/slack-payloads';
import { putTask } from '../../support/task-fixtures';

/**
 * Task and Home buttons follow the rules of the commands they run, judged by the task's project,
 * never by the channel the click came from: forged (validly signed) clicks from another channel
 * by someone who may not steer the project are refused with a note only they see, and change
 * nothing — not the task, not the message.
 */
describe('buttons follow the same rules as commands', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let started: StartedApp;
  let id: string;

  beforeEach(async () => {
    app = await startTestApp({ AQ_ADMINS: 'UADMIN' });
    ({ slack, started } = app);
    await exec('create_project', { name: 'alpha', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'alpha', channel_id: 'CALPHA' });
    await exec('set_project_steerers', { project_id: 'alpha', user_ids: ['USTEER'] });
    id = (await exec('create_task', { project_id: 'alpha', title: 'Ship it', description: 'd' })).created as string;
  });
  afterEach(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) => started.runtime.handler.executeAny(name, args, { source: 'system' });
  const status = async () => (await exec('get_task', { task_id: id })).status;
  /** A click signed with the app's secret, as anyone holding a button's payload could send it. */
  const click = (actionId: string, userId: string, responseId: string, channelId = 'CELSEWHERE') =>
    FakeSlack.postToApp(
      app.url,
      `payload=${encodeURIComponent(
        JSON.stringify(blockActions({ actionId, value: id, userId, channelId, responseUrl: slack.responseUrl(responseId) })),
      )}`,
      { signingSecret: app.signingSecret },
    );
  const answer = (responseId: string) => slack.waitForResponse((r) => r.id === responseId, 30_000);

  it('refuses Approve, Restart, Skip, Stop and Request changes to a non-steerer, from any channel', async () => {
    const cases: Array<[string, 'AWAITING_APPROVAL' | 'FAILED' | 'IN_PROGRESS', string]> = [
      ['aq_approve_task', 'AWAITING_APPROVAL', 'approve'],
      ['aq_request_changes', 'AWAITING_APPROVAL', 'request changes on'],
      ['aq_restart_task', 'FAILED', 'restart'],
      ['aq_skip_task', 'FAILED', 'skip'],
      ['aq_stop_task', 'IN_PROGRESS', 'stop'],
    ];
    for (const [actionId, before, verb] of cases) {
      await putTask(started.runtime.db, id, before);
      for (const channel of ['CELSEWHERE', 'CALPHA']) {
        const responseId = `${actionId}-${channel}`;
        expect((await click(actionId, 'UOTHER', responseId, channel)).status).toBe(200);
        const note = await answer(responseId);
        expect(note.body).toMatchObject({
          response_type: 'ephemeral',
          replace_original: false,
          text: `:no_entry: Only the steerers of project 'alpha' or admins (AQ_ADMINS) may ${verb} its tasks; ask one of them.`,
        });
        expect(await status()).toBe(before);
      }
    }
    // Nothing was redrawn and no modal opened for the refused clicks.
    expect(slack.responses.filter((r) => r.body.replace_original === true)).toEqual([]);
    expect(slack.callsTo('views.open')).toEqual([]);
  });

  it('lets a steerer click from another channel: the rule follows the project, not the channel', async () => {
    await putTask(started.runtime.db, id, 'FAILED');
    expect((await click('aq_restart_task', 'USTEER', 'r1')).status).toBe(200);
    await slack.waitFor(() => slack.responses.some((r) => r.id === 'r1' && r.body.replace_original === true), 'the redraw', 30_000);
    expect(await status()).toBe('READY');
  });

  it('refuses a Home button the same way (Resume project)', async () => {
    await exec('pause_project', { project_id: 'alpha' });
    const home = {
      ...blockActions({ actionId: 'aq_resume_project', value: 'alpha', userId: 'UOTHER', responseUrl: '' }),
      container: { type: 'view', view_id: 'VHOME' },
      view: { id: 'VHOME', type: 'home', blocks: [] },
      channel: undefined,
      message: undefined,
      response_url: undefined,
    };
    expect(
      (await FakeSlack.postToApp(app.url, `payload=${encodeURIComponent(JSON.stringify(home))}`, { signingSecret: app.signingSecret }))
        .status,
    ).toBe(200);
    const published = await slack.waitForCall('views.publish', (c) => c.args.user_id === 'UOTHER', 30_000);
    expect(JSON.stringify(published.args.view)).toContain("Only the steerers of project 'alpha' or admins (AQ_ADMINS) may resume it");
    expect(await exec('list_projects')).toMatchObject({ projects: [{ id: 'alpha', status: 'PAUSED' }] });
  });

  it('with approvals by requester only, a steerer cannot approve a task another person asked for; an admin can', async () => {
    await started.runtime.handler.execute(
      'edit_project',
      { project_id: 'alpha', approvals_by_requester: true },
      { source: 'slack', userId: 'UADMIN' },
    );
    await putTask(started.runtime.db, id, 'AWAITING_APPROVAL');
    expect((await click('aq_approve_task', 'USTEER', 'steer')).status).toBe(200);
    expect((await answer('steer')).body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining("Project 'alpha' leaves approvals to each task's requester and the admins"),
    });
    expect(await status()).toBe('AWAITING_APPROVAL');
    expect((await click('aq_approve_task', 'UADMIN', 'admin')).status).toBe(200);
    await slack.waitFor(() => slack.responses.some((r) => r.id === 'admin' && r.body.replace_original === true), 'the redraw', 30_000);
    expect(await status()).toBe('COMPLETED');
  });
});
