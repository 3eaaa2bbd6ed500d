import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { blockActions, interactionBody, viewSubmission } from '../../support/slack-payloads';

type View = { callback_id?: string; private_metadata?: string; blocks: Array<{ block_id?: string }> };

/** Request changes on a task awaiting approval, through the real Bolt app: button → modal → follow-up run. */
describe('Request changes', () => {
  let app: TestApp;
  let slack: FakeSlack;

  beforeEach(async () => {
    app = await startTestApp();
    slack = app.slack;
  });
  afterEach(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args, { source: 'system' });
  const post = (body: string) => FakeSlack.postToApp(app.url, body, { signingSecret: app.signingSecret });
  const click = (taskId: string) =>
    post(
      interactionBody(
        blockActions({ actionId: 'aq_request_changes', value: taskId, channelId: 'CWEB', responseUrl: slack.responseUrl('rc') }),
      ),
    );
  const submit = (view: View, text: string) =>
    post(
      interactionBody(
        viewSubmission({
          callbackId: view.callback_id!,
          values: { changes: { value: { type: 'plain_text_input', value: text } } },
          privateMetadata: view.private_metadata,
        }),
      ),
    );

  async function awaitingTask(): Promise<string> {
    await exec('create_project', { name: 'web', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'web', channel_id: 'CWEB' });
    const id = (await exec('create_task', { project_id: 'web', title: 'Ship *it*', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'AWAITING_APPROVAL' });
    return id;
  }

  it('opens a modal whose text sends the task back to its agent as a follow-up', async () => {
    const id = await awaitingTask();
    await click(id);
    const modal = (await slack.waitForCall('views.open')).args.view as View;
    expect(modal.callback_id).toBe('aq_request_changes');
    expect(modal.blocks.map((b) => b.block_id)).toContain('changes');

    const refused = await submit(modal, '   ');
    expect(refused.status).toBe(200);
    expect(JSON.parse(refused.body)).toEqual({ response_action: 'errors', errors: { changes: 'Say what should change.' } });

    await submit(modal, 'Rename the button to Save.');
    const told = await slack.waitForCall('chat.postEphemeral');
    expect(told.args).toMatchObject({ channel: 'CWEB', user: 'U1', text: expect.stringContaining('Changes requested') });
    expect((await exec('get_task', { task_id: id })).status).toBe('READY');
    const { events } = (await exec('get_recent_events', { limit: 20 })) as {
      events: Array<{ type: string; payload: Record<string, unknown> }>;
    };
    expect(events.find((e) => e.type === 'task_follow_up_queued')?.payload).toMatchObject({ text: 'Rename the button to Save.' });
  });

  it('says so, and opens nothing, when the task no longer awaits approval', async () => {
    const id = await awaitingTask();
    await exec('approve_task', { task_id: id });
    await click(id);
    // A click in a channel message is answered through its response_url, to the person alone.
    const told = await slack.waitForResponse((r) => r.id === 'rc');
    expect(told.body).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('not awaiting approval') });
    expect(slack.callsTo('views.open')).toHaveLength(0);
  });
});
