import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback, interactionBody, viewSubmission } from '../../support/slack-payloads';
import { homeBlockActions } from '../../support/slack-home-payloads';

type View = { blocks: unknown[] };

describe('the Home lists automations with a one-click pause', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AQ_ADMINS: 'U1' });
  }, 120_000);
  afterAll(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args, { source: 'system' });
  const post = (body: string | Record<string, unknown>, json = false) =>
    FakeSlack.postToApp(app.url, body, { signingSecret: app.signingSecret, ...(json && { contentType: 'json' as const }) });
  const text = (view: View) => JSON.stringify(view.blocks);
  const publishWith = async (after: number, note: string): Promise<View> => {
    const later = () =>
      app.slack
        .callsTo('views.publish')
        .slice(after)
        .map((c) => c.args.view as View);
    await app.slack.waitFor(() => later().some((v) => text(v).includes(note)), `a Home showing ${note}`);
    return later().find((v) => text(v).includes(note))!;
  };

  it('shows each automation and pauses one for an admin, refusing anyone else', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('create_automation', { name: 'Night <build>', kind: 'schedule', project_id: 'p', title: 't', cron: '0 3 * * *' });
    let n = app.slack.callsTo('views.publish').length;
    await post(eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home', event_ts: '1700000000.1' }), true);
    const home = await publishWith(n, 'Automations');
    expect(text(home)).toContain('aq_pause_automation');
    expect(text(home)).toContain('Night <build>');

    n = app.slack.callsTo('views.publish').length;
    await post(interactionBody(homeBlockActions({ actionId: 'aq_pause_automation', value: 'night-<build>', userId: 'U2' })));
    await publishWith(n, 'Only workspace admins can run pause_automation');
    expect(await exec('get_automation', { automation_id: 'night-<build>' })).toMatchObject({ enabled: true });

    n = app.slack.callsTo('views.publish').length;
    await post(interactionBody(homeBlockActions({ actionId: 'aq_pause_automation', value: 'night-<build>' })));
    const after = await publishWith(n, 'Paused automation');
    expect(text(after)).toContain('aq_resume_automation');
    expect(await exec('get_automation', { automation_id: 'night-<build>' })).toMatchObject({ enabled: false });
  });

  it('turns on channel intake from a button and a form, for an admin only', async () => {
    await exec('create_project', { name: 'web', auto_create_channels: false });
    await post(interactionBody(homeBlockActions({ actionId: 'aq_add_intake', value: 'intake' })));
    const modal = (await app.slack.waitForCall('views.open')).args.view as { callback_id: string; private_metadata: string };
    expect(modal.callback_id).toBe('aq_intake_setup');
    const submit = (values: Record<string, Record<string, unknown>>, userId = 'U1') =>
      post(
        interactionBody(
          viewSubmission({
            callbackId: modal.callback_id,
            privateMetadata: modal.private_metadata,
            userId,
            values: Object.fromEntries(Object.entries(values).map(([block, v]) => [block, { value: v }])),
          }),
        ),
      );
    const refused = await submit({ name: { type: 'plain_text_input', value: '' } });
    expect(JSON.parse(refused.body)).toMatchObject({
      response_action: 'errors',
      errors: { name: 'Name the intake.', channel: 'Pick the channel to read.', project: 'Pick the project its tasks go to.' },
    });
    const filled = {
      name: { type: 'plain_text_input', value: 'Bug reports' },
      channel: { type: 'conversations_select', selected_conversation: 'CBUGS' },
      project: { type: 'static_select', selected_option: { value: 'web' } },
      policy: { type: 'radio_buttons', selected_option: { value: 'create' } },
      reaction: { type: 'plain_text_input', value: ':bug:' },
      pattern: { type: 'plain_text_input', value: '' },
      people: { type: 'multi_users_select', selected_users: ['U7', 'U8'] },
    };
    let n = app.slack.callsTo('views.publish').length;
    await submit(filled, 'U2');
    await publishWith(n, 'Intake was not turned on');
    expect((await exec('list_automations', { kind: 'intake' })).total).toBe(0);

    n = app.slack.callsTo('views.publish').length;
    await submit(filled);
    await publishWith(n, 'now reads');
    expect(await exec('get_automation', { automation_id: 'bug-reports' })).toMatchObject({
      kind: 'intake',
      project_id: 'web',
      enabled: true,
      channel_id: 'CBUGS',
      settings: expect.objectContaining({ policy: 'create', reaction: 'bug', people: ['U7', 'U8'] }),
    });
  });
});
