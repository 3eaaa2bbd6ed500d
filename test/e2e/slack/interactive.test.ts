import { LogLevel } from '@slack/bolt';
import { z } from 'zod';
import { ALL_COMMANDS } from '../../../src/commands';
import { defineCommand } from '../../../src/commands/catalog';
import { loadConfig } from '../../../src/config';
import { startApp, type StartedApp } from '../../../src/app';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { blockActions, eventCallback, slashCommand } from '../../support/slack-payloads';
import { makeTempDir } from '../../support/tmp';
import { waitFor } from '../../integration/orchestrator/harness';
import { succeeded } from '../../support/outcome';

const SECRET = 'test-signing-secret';

/** Held until the test releases it after Slack has its ack, so the command provably outlives the ack. */
let releaseSlow: () => void = () => undefined;
let slowStarted: Promise<void> = Promise.resolve();
let markSlowStarted: () => void = () => undefined;
function armSlowCommand(): void {
  slowStarted = new Promise<void>((resolve) => {
    markSlowStarted = resolve;
  });
}

const slowCommand = defineCommand({
  name: 'slow_probe',
  group: 'system',
  kind: 'change',
  description: 'Test-only: answers when the test releases it.',
  input: z.object({}),
  async run() {
    await new Promise<void>((resolve) => {
      releaseSlow = resolve;
      markSlowStarted();
    });
    return { done: true };
  },
});

describe('buttons, App Home, task threads and channels through the real Bolt app', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let started: StartedApp;
  let appUrl: string;

  beforeEach(async () => {
    app = await startTestApp({ AQ_AUTO_CREATE_CHANNELS: 'true' }, { commands: [...ALL_COMMANDS, slowCommand] });
    ({ slack, started, url: appUrl } = app);
  });
  afterEach(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) => started.runtime.handler.executeAny(name, args, { source: 'system' });
  const press = (actionId: string, value: string) =>
    FakeSlack.postToApp(
      appUrl,
      `payload=${encodeURIComponent(JSON.stringify(blockActions({ actionId, value, responseUrl: slack.responseUrl('btn') })))}`,
      { signingSecret: SECRET },
    );

  it('creates and links #aq-<project> when asked, taking another name when it is taken', async () => {
    slack.setResponse('conversations.create', (args) =>
      args.name === 'aq-web' ? { ok: false, error: 'name_taken' } : { ok: true, channel: { id: 'CWEB2', name: args.name } },
    );
    await exec('create_project', { name: 'Web' });
    await slack.waitFor(() => slack.callsTo('conversations.create').length === 2, 'two create attempts');
    expect(slack.callsTo('conversations.create').map((c) => c.args.name)).toEqual(['aq-web', 'aq-web-2']);
    await waitFor(
      async () => (await exec('get_project_channels', { project_id: 'web' })).channel_id === 'CWEB2',
      5_000,
      'the channel link',
    );
    expect(await exec('get_project_channels', { project_id: 'web' })).toEqual({ project_id: 'web', channel_id: 'CWEB2' });
    await exec('delete_project', { project_id: 'web', archive_channels: true });
    await slack.waitFor(() => slack.callsTo('conversations.archive').length === 1, 'the archive');
    expect(slack.callsTo('conversations.archive')[0].args.channel).toBe('CWEB2');
  });

  it('approves from a button, redraws the message, and answers a second click politely', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    const id = (await exec('create_task', { project_id: 'p', title: 'Ship it', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'AWAITING_APPROVAL' });
    expect((await press('aq_approve_task', id)).status).toBe(200);
    await slack.waitFor(() => slack.responses.length === 1, 'the redraw');
    expect((await exec('get_task', { task_id: id })).status).toBe('COMPLETED');
    expect(slack.responses[0].body).toMatchObject({ replace_original: true });
    const redrawn = JSON.stringify(slack.responses[0].body.blocks);
    expect(redrawn).toContain('🟢');
    expect(redrawn).toContain('Approved by <@U1>');
    expect(redrawn).not.toContain('aq_approve_task');

    await press('aq_approve_task', id);
    await slack.waitFor(() => slack.responses.length === 3, 'the polite note and redraw');
    expect(slack.responses[1].body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: expect.stringContaining('already completed'),
    });
    const { events } = (await exec('get_recent_events', { limit: 50 })) as {
      events: Array<{ type: string; task_id: string; payload: Record<string, unknown> }>;
    };
    const completions = events.filter((e) => e.type === 'task_completed' && e.task_id === id);
    expect(completions).toHaveLength(1);
    expect(completions[0].payload).toMatchObject({ approved: true, approved_by: 'U1' });
  });

  it('publishes the App Home dashboard with approval buttons', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    const id = (await exec('create_task', { project_id: 'p', title: 'Review me', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: id, status: 'AWAITING_APPROVAL' });
    await FakeSlack.postToApp(
      appUrl,
      JSON.stringify(eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home', event_ts: '1700000000.1' })),
      {
        signingSecret: SECRET,
        contentType: 'json',
      },
    );
    await slack.waitFor(() => slack.callsTo('views.publish').length === 1, 'views.publish');
    const view = slack.callsTo('views.publish')[0].args.view as { type: string; blocks: unknown[] };
    expect(view.type).toBe('home');
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('Needs you');
    expect(text).toContain('Review me');
    expect(text).toContain('aq_approve_task');
    expect(view.blocks.length).toBeLessThanOrEqual(100);
  });

  it('opens the New task modal from App Home and queues the task it submits, refusing empty fields', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await press('aq_open_new_task', 'new');
    await slack.waitFor(() => slack.callsTo('views.open').length === 1, 'views.open');
    const view = slack.callsTo('views.open')[0].args.view as { callback_id: string; blocks: Array<{ block_id: string }> };
    expect(view.callback_id).toBe('aq_new_task');
    expect(view.blocks.map((b) => b.block_id)).toEqual(['project', 'title', 'description', 'priority', 'depends_on', 'approval']);

    const submit = (title: string) =>
      FakeSlack.postToApp(
        appUrl,
        `payload=${encodeURIComponent(
          JSON.stringify({
            type: 'view_submission',
            team: { id: 'T1', domain: 'x' },
            user: { id: 'U1', name: 'alice', team_id: 'T1' },
            api_app_id: 'A1',
            token: 'verification-token',
            trigger_id: '1.2.3',
            view: {
              id: 'V1',
              type: 'modal',
              callback_id: 'aq_new_task',
              state: {
                values: {
                  project: { value: { type: 'static_select', selected_option: { value: 'p', text: { type: 'plain_text', text: 'p' } } } },
                  title: { value: { type: 'plain_text_input', value: title } },
                  description: { value: { type: 'plain_text_input', value: 'Make it so.' } },
                  approval: { value: { type: 'checkboxes', selected_options: [{ value: 'requires_approval' }] } },
                },
              },
            },
          }),
        )}`,
        { signingSecret: SECRET },
      );
    const refused = await submit('  ');
    expect(JSON.parse(refused.body)).toEqual({ response_action: 'errors', errors: { title: 'Give the task a title.' } });
    expect((await submit('From the modal')).status).toBe(200);
    await slack.waitFor(
      () => slack.callsTo('chat.postMessage').some((c) => String(c.args.text).includes('Queued *From the modal*')),
      'the DM confirmation',
    );
    const tasks = (await exec('list_tasks', { project_id: 'p' })) as { tasks: Array<{ id: string; title: string }> };
    expect(tasks.tasks.map((t) => t.title)).toEqual(['From the modal']);
    expect((await exec('get_task', { task_id: tasks.tasks[0].id })).requires_approval).toBe(true);
  });

  it('opens a thread per task and replies there as the task moves on', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'p', channel_id: 'CP' });
    const id = (await exec('create_task', { project_id: 'p', title: 'Build it', description: 'd' })).created as string;
    await started.runtime.events.emit('task_started', {
      projectId: 'p',
      taskId: id,
      payload: { title: 'Build it', agent_name: 'claude-1', branch: `${id}/build-it` },
    });
    await started.runtime.events.emit('task_completed', {
      projectId: 'p',
      taskId: id,
      payload: { title: 'Build it', summary: 'Added **the** feature.', tokens: 1200 },
    });
    await started.notifier.idle();
    const [root, reply] = slack.callsTo('chat.postMessage');
    expect(root.args).toMatchObject({ channel: 'CP', text: '🔵 Build it — ready' });
    expect(reply.args).toMatchObject({ channel: 'CP', thread_ts: expect.any(String), text: '✅ Completed: Build it' });
    expect(JSON.stringify(reply.args.blocks)).toContain('Added *the* feature.');
  });

  it('posts a hook result in the thread of the task it is about, else in the hook’s own thread', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'p', channel_id: 'CP' });
    const id = (await exec('create_task', { project_id: 'p', title: 'Build it', description: 'd' })).created as string;
    await started.runtime.events.emit('task_started', { projectId: 'p', taskId: id, payload: { title: 'Build it' } });
    await started.notifier.idle();
    const hookRun = async (hookId: string, response: string, taskId?: string, type = 'hook_run_completed' as const) => {
      const before = slack.callsTo('chat.postMessage').length;
      await started.runtime.events.emit(type, {
        projectId: 'p',
        taskId: taskId ?? null,
        payload: { hook_id: hookId, hook_name: hookId === 'nightly' ? 'Nightly' : hookId, tokens_used: 42, response },
      });
      await started.notifier.idle();
      expect(slack.callsTo('chat.postMessage')).toHaveLength(before + 1);
      return slack.callsTo('chat.postMessage').at(-1)!;
    };

    // A hook with no task: its first result opens its thread, later results reply there.
    const first = await hookRun('nightly', 'All **green**.');
    expect(first.args).toMatchObject({ channel: 'CP', text: '🪝 Hook Nightly ran' });
    expect(first.args.thread_ts).toBeUndefined();
    expect(JSON.stringify(first.args.blocks)).toContain('All *green*.');
    const stored = await started.runtime.db.state.get<{ channelId: string; threadTs: string } | null>('slack_hook_thread:nightly', null);
    expect(stored?.channelId).toBe('CP');
    const firstTs = String(stored?.threadTs);
    // The thread remembered is the one the first result opened.
    expect(slack.threadMessages('CP', firstTs)[0]).toMatchObject({ text: '🪝 Hook Nightly ran' });
    const second = await hookRun('nightly', 'Still green.');
    expect(second.args).toMatchObject({ channel: 'CP', thread_ts: firstTs, text: '🪝 Hook Nightly ran' });
    // Another hook gets a thread of its own.
    const other = await hookRun('weekly', 'Weekly report.');
    expect(other.args.thread_ts).toBeUndefined();

    // A hook about a task (started by that task's event) answers in the task's thread, failures too.
    const aboutTask = await hookRun('review', 'Looks risky.', id, 'hook_run_failed' as never);
    expect(aboutTask.args).toMatchObject({
      channel: 'CP',
      thread_ts: (await started.runtime.db.taskThreads.get(id))?.threadTs,
      text: '🪝 Hook review failed',
    });
    expect(slack.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts)).toHaveLength(3);
  });

  it('acks a slow command at once and answers when it finishes', async () => {
    armSlowCommand();
    const ack = await FakeSlack.postToApp(appUrl, slashCommand({ text: 'slow_probe', responseUrl: slack.responseUrl() }), {
      signingSecret: SECRET,
    });
    // The command is still running (held until now), so the ack cannot have waited for it.
    expect(ack.status).toBe(200);
    expect(ack.elapsedMs).toBeLessThan(3000);
    await slowStarted;
    expect(slack.responses).toHaveLength(0);
    releaseSlow();
    await slack.waitFor(() => slack.responses.length === 1, 'the slow answer');
    expect(JSON.stringify(slack.responses[0].body)).toContain('done');
  });
});

describe('Socket Mode through a loopback apps.connections.open and WebSocket', () => {
  it('connects, acks a slash command envelope and answers through response_url', async () => {
    const slack = await FakeSlack.start();
    slack.enableSocketMode();
    const tmp = await makeTempDir('aq-socket-');
    const config = loadConfig({
      AQ_HOME: tmp.dir,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_APP_TOKEN: 'xapp-test',
      SLACK_API_URL: slack.apiUrl,
    });
    const started = await startApp(config, { logLevel: LogLevel.ERROR, clientOptions: { retryConfig: { retries: 0 } }, daemon: false });
    try {
      await slack.waitForSocket();
      expect(slack.callsTo('apps.connections.open')[0].authorization).toBe('Bearer xapp-test');
      const fields = Object.fromEntries(
        new URLSearchParams(slashCommand({ text: 'create_project name=sock', responseUrl: slack.responseUrl() })),
      );
      const { ack, elapsedMs } = await slack.sendEnvelope('slash_commands', fields);
      expect(ack.envelope_id).toBe('env-1');
      expect(elapsedMs).toBeLessThan(3000);
      await slack.waitFor(() => slack.responses.length === 1, 'the response');
      expect(await started.runtime.handler.execute('get_project_channels', { project_id: 'sock' }, { source: 'system' })).toEqual({
        project_id: 'sock',
        channel_id: null,
      });

      const home = await slack.sendEnvelope(
        'events_api',
        eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home', event_ts: '1.2' }),
      );
      expect(home.ack.envelope_id).toBe('env-2');
      await slack.waitFor(() => slack.callsTo('views.publish').length === 1, 'views.publish over Socket Mode');

      const id = succeeded(
        await started.runtime.handler.execute(
          'create_task',
          { project_id: 'sock', title: 'Sock task', description: 'd' },
          { source: 'system' },
        ),
      ).created;
      await started.runtime.handler.execute('set_task_status', { task_id: id, status: 'FAILED' }, { source: 'system' });
      const click = await slack.sendEnvelope(
        'interactive',
        blockActions({ actionId: 'aq_skip_task', value: id, responseUrl: slack.responseUrl('skip') }),
      );
      expect(click.ack.envelope_id).toBe('env-3');
      await slack.waitFor(() => slack.responses.some((r) => r.id === 'skip'), 'the redraw after Skip');
      expect(succeeded(await started.runtime.handler.execute('get_task', { task_id: id }, { source: 'system' })).status).toBe('COMPLETED');
    } finally {
      await started.stop();
      await slack.close();
      await tmp.cleanup();
    }
  });
});
