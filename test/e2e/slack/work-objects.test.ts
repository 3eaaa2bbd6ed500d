import type { EntityMetadata } from '@slack/types';
import { AppLog } from '../../support/app-log';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack, type ApiCall } from '../../support/fake-slack';
import { eventCallback } from '../../support/slack-payloads';
import { asRead, HOSTILE } from '../../support/hostile';
import { visibleTexts } from '../../support/slack-validator';
import { waitFor } from '../../integration/orchestrator/harness';
import { unfurlTaskLinks } from '../../../src/slack/task-unfurls';
import { slackFeaturesFor } from '../../../src/slack/ai-surfaces/features';

/**
 * Tasks as Slack Work Objects, through the real app and notifier against the fake Slack: the
 * thread's root card carries the task entity and keeps it current; entity_details_requested gets
 * the task as get_task shows it now (or a not-found sentence); a workspace that refuses Work
 * Objects is noticed once and the thread goes on without them.
 */
describe('tasks as Work Objects', () => {
  let app: TestApp;
  let appLog: AppLog;
  let slack: FakeSlack;

  const PUBLIC_URL = 'https://aq.example.com/queue';

  beforeEach(async () => {
    appLog = new AppLog();
    app = await startTestApp({ AQ_PUBLIC_URL: `${PUBLIC_URL}/` }, { log: appLog.log });
    slack = app.slack;
    await exec('create_project', { name: 'web', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'web', channel_id: 'CPROJ' });
    slack.clearCalls();
  });
  afterEach(async () => {
    try {
      await app.stop();
    } finally {
      appLog.flush();
    }
  });

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const post = (body: unknown) =>
    FakeSlack.postToApp(app.url, JSON.stringify(body), { signingSecret: app.signingSecret, contentType: 'json' });
  const settle = () => app.started.notifier.idle();
  const roots = () => slack.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts);
  const entityOf = (call: ApiCall) => (call.args.metadata as { entities?: EntityMetadata[] } | undefined)?.entities?.[0];
  const slackFeatures = async () => (await exec('get_status')).slack_features as Record<string, Record<string, unknown>> | undefined;

  async function startedTask(title: string, priority = 3): Promise<string> {
    const id = (await exec('create_task', { project_id: 'web', title, description: 'Make it work.', priority })).created as string;
    await exec('set_task_status', { task_id: id, status: 'IN_PROGRESS' });
    await rt().db.em().getConnection().execute('update tasks set assigned_agent = ? where id = ?', ['agent-1', id]);
    await rt().events.emit('task_started', { projectId: 'web', taskId: id, payload: { title, agent_name: 'agent-1' } });
    await settle();
    return id;
  }

  const detailsRequested = (taskId: string | null, entityUrl = `https://slack.com/app_redirect?aq_task=${taskId}`) =>
    eventCallback({
      type: 'entity_details_requested',
      user: 'U1',
      trigger_id: `trig-${Math.random().toString(36).slice(2)}`,
      link: { url: entityUrl, domain: 'slack.com' },
      entity_url: entityUrl,
      user_locale: 'en-US',
      event_ts: '1700000000.000500',
      ...(taskId && { external_ref: { id: taskId, type: 'aq_task' } }),
      channel: 'CPROJ',
    });

  it('puts the task entity on the root card, escaped, and keeps its status current', async () => {
    const id = await startedTask(`Fix ${HOSTILE}`);
    const [root] = roots();
    const entity = entityOf(root)!;
    expect(entity).toMatchObject({
      entity_type: 'slack#/entities/task',
      external_ref: { id, type: 'aq_task' },
      entity_payload: {
        attributes: { display_id: id, product_name: 'Agent Queue' },
        fields: { status: { value: 'running' }, assignee: { value: 'agent-1' }, priority: { value: '3' } },
      },
    });
    // With AQ_PUBLIC_URL, the entity's URL is the task's link (the one that unfurls when pasted).
    expect(entity.url).toBe(`${PUBLIC_URL}/tasks/${id}`);
    // The hostile title reaches Slack escaped (the fake's validator also checks every entity string).
    expect(entity.entity_payload.attributes.title.text).toContain('&lt;!channel&gt;');
    expect(entity.entity_payload.attributes.title.text).not.toContain('<!channel>');
    // The fake keeps the message with its Work Object, as Slack does.
    expect(slack.threadMessages('CPROJ', String((await rt().db.taskThreads.get(id))!.threadTs))[0].metadata).toEqual(root.args.metadata);

    await exec('set_task_status', { task_id: id, status: 'AWAITING_APPROVAL' });
    await rt().events.emit('task_awaiting_approval', { projectId: 'web', taskId: id, payload: { title: 'Fix' } });
    await settle();
    const update = slack.callsTo('chat.update').at(-1)!;
    expect(entityOf(update)).toMatchObject({
      external_ref: { id },
      entity_payload: { fields: { status: { value: 'awaiting approval' } } },
    });
    expect((await slackFeatures())?.work_objects).toMatchObject({ mode: 'native' });
  });

  it('answers entity_details_requested with the task as it is now, and a not-found sentence for a deleted one', async () => {
    const id = await startedTask('Ship the login page');
    await exec('set_task_status', { task_id: id, status: 'FAILED' });

    await post(detailsRequested(id));
    await slack.waitFor(() => slack.workObjects.presented.length === 1, 'the details pane');
    const [shown] = slack.workObjects.presented;
    expect(shown.trigger_id).toMatch(/^trig-/);
    expect(shown.metadata).toMatchObject({
      entity_type: 'slack#/entities/task',
      external_ref: { id },
      entity_payload: { attributes: { title: { text: 'Ship the login page' } }, fields: { status: { value: 'failed' } } },
    });

    // The id in the link alone is enough (a pasted link carries no external_ref).
    await exec('delete_task', { task_id: id });
    await post(detailsRequested(null, `https://slack.com/app_redirect?channel=CPROJ&aq_task=${id}`));
    await slack.waitFor(() => slack.workObjects.presented.length === 2, 'the not-found pane');
    const gone = slack.workObjects.presented[1];
    expect(gone.metadata).toBeUndefined();
    expect(gone.error).toMatchObject({ status: 'custom', custom_title: 'Task not found' });
    expect(String((gone.error as Record<string, unknown>).custom_message)).toBe(
      `There is no task ${id} any more: it may have been deleted. /aq list_tasks shows the tasks there are.`,
    );
  });

  const linkShared = (urls: string[], extra: Record<string, unknown> = {}) =>
    eventCallback({
      type: 'link_shared',
      channel: 'CTALK',
      user: 'U1',
      message_ts: '1700000000.000900',
      is_bot_user_member: false,
      links: urls.map((url) => ({ url, domain: new URL(url).host })),
      event_ts: '1700000000.000901',
      ...extra,
    });
  const unfurlsOf = (call: ApiCall) => call.args.unfurls as Record<string, { blocks: Array<{ text?: { text: string } }> }>;
  const linkOf = (id: string) => `${PUBLIC_URL}/tasks/${id}`;

  it('unfurls a pasted task link as the task, escaped; a gone task, or a workspace without Work Objects, the classic way', async () => {
    const id = await startedTask(`Fix ${HOSTILE}`);
    // Pasted in the composer: only our task links are unfurled, into the composer's unfurl.
    await post(linkShared([linkOf(id), 'https://elsewhere.example/tasks/x'], { unfurl_id: 'U-1', source: 'composer' }));
    await slack.waitForCall('chat.unfurl');
    const [asEntity] = slack.workObjects.unfurled;
    expect(asEntity).toMatchObject({ unfurl_id: 'U-1', source: 'composer' });
    const entity = (asEntity.metadata as { entities: EntityMetadata[] }).entities;
    expect(entity).toHaveLength(1);
    expect(entity[0]).toMatchObject({
      app_unfurl_url: linkOf(id),
      url: linkOf(id),
      external_ref: { id, type: 'aq_task' },
      entity_payload: { fields: { status: { value: 'running' } } },
    });
    expect(entity[0].entity_payload.attributes.title.text).toContain('&lt;!channel&gt;');
    // Opened in a browser, the link (served where the app listens over HTTP) leads to the task's thread's channel.
    const opened = await fetch(`${app.url}/queue/tasks/${id}`, { redirect: 'manual' });
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('https://slack.com/app_redirect?channel=CPROJ');
    const unknown = await fetch(`${app.url}/queue/tasks/no-such-task`, { redirect: 'manual' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('There is no task no-such-task here: it may have been deleted, or not have started yet.\n');

    // A link to a task that is gone says so, in the message it was posted in.
    const gone = (await exec('create_task', { project_id: 'web', title: 'Short-lived', description: 'd' })).created as string;
    await exec('delete_task', { task_id: gone });
    slack.clearCalls();
    await post(linkShared([linkOf(gone)]));
    const [goneCall] = await slack.waitForCall('chat.unfurl').then(() => slack.callsTo('chat.unfurl'));
    expect(goneCall.args).toMatchObject({ channel: 'CTALK', ts: '1700000000.000900' });
    expect(goneCall.args.metadata).toBeUndefined();
    expect(unfurlsOf(goneCall)[linkOf(gone)].blocks[0].text?.text).toBe(
      `There is no task ${gone} any more: it may have been deleted. \`/aq list_tasks\` shows the tasks there are.`,
    );

    // A workspace that refuses the Work Object gets the classic unfurl, decided once.
    slack.workObjects.refuse('invalid_metadata');
    slack.clearCalls();
    await post(linkShared([linkOf(id)]));
    await slack.waitFor(() => slack.callsTo('chat.unfurl').length === 2, 'the classic unfurl after the refusal');
    const classic = slack.callsTo('chat.unfurl')[1];
    expect(classic.args.metadata).toBeUndefined();
    const [title, facts] = unfurlsOf(classic)[linkOf(id)].blocks;
    // The title is literal rich text (the fake's validator checks the escaped rest), with the task's link.
    expect(visibleTexts(title)).toEqual([`🟡 Fix ${asRead(HOSTILE)} · running\n${linkOf(id)}`]);
    expect(visibleTexts(facts)).toEqual([`Task ${id} · project web · agent agent-1`]);
    expect((await slackFeatures())?.work_objects).toMatchObject({
      mode: 'fallback',
      method: 'chat.unfurl',
      slack_error: 'invalid_metadata',
    });
    expect(appLog.take('Slack answered invalid_metadata to chat.unfurl')).toHaveLength(1);
  });

  it('leaves task links alone once Slack refuses chat.unfurl, and says so in get_status', async () => {
    const id = await startedTask('Ship it');
    slack.setResponse('chat.unfurl', { ok: false, error: 'missing_scope', needed: 'links:write' }, { times: 1 });
    await post(linkShared([linkOf(id)]));
    await slack.waitForCall('chat.unfurl');
    const features = await waitFor(
      async () => {
        const now = await slackFeatures();
        return now?.task_unfurls?.mode === 'fallback' ? now : null;
      },
      30_000,
      'the refusal recorded',
    );
    expect(features.task_unfurls).toMatchObject({ method: 'chat.unfurl', slack_error: 'missing_scope' });
    // The Work Objects of cards are not the unfurl's business.
    expect(features.work_objects?.mode).not.toBe('fallback');
    expect(appLog.take('Slack answered missing_scope to chat.unfurl')).toHaveLength(1);
    // Decided once: the next link is left without asking Slack (awaited here, as the listener runs it).
    slack.clearCalls();
    const logged: string[] = [];
    await unfurlTaskLinks(
      {
        handler: rt().handler,
        client: app.started.app.client,
        features: slackFeaturesFor(rt().db.state, (m) => logged.push(m)),
        publicUrl: PUBLIC_URL,
        log: (m) => logged.push(m),
      },
      { channel: 'CTALK', user: 'U1', message_ts: '1700000000.000900', links: [{ url: linkOf(id) }] },
    );
    expect(slack.callsTo('chat.unfurl')).toHaveLength(0);
    expect(logged).toEqual([]);
  });

  it('posts cards without the Work Object once the workspace refuses it, and the thread goes on', async () => {
    slack.workObjects.refuse('feature_not_enabled');
    const first = await startedTask('Refused once');
    // Tried with the entity, refused, posted again without it.
    expect(roots().map((c) => Boolean(entityOf(c)))).toEqual([true, false]);
    expect(slack.threadMessages('CPROJ', String((await rt().db.taskThreads.get(first))!.threadTs))).toHaveLength(1);
    expect((await slackFeatures())?.work_objects).toMatchObject({
      mode: 'fallback',
      method: 'chat.postMessage',
      slack_error: 'feature_not_enabled',
    });

    // Known from now on: the next task's card goes without it at once, and its thread works as ever.
    slack.clearCalls();
    const second = await startedTask('Refused twice');
    expect(roots()).toHaveLength(1);
    expect(entityOf(roots()[0])).toBeUndefined();
    await exec('set_task_status', { task_id: second, status: 'FAILED' });
    await rt().events.emit('task_failed', { projectId: 'web', taskId: second, payload: { title: 'Refused twice', error: 'boom' } });
    await settle();
    expect(slack.callsTo('chat.update').every((c) => !entityOf(c))).toBe(true);
    expect(
      slack
        .callsTo('chat.postMessage')
        .filter((c) => c.args.thread_ts)
        .map((c) => c.args.text),
    ).toContain('🔴 Failed: Refused twice');

    // A details request the workspace refuses is left, with nothing thrown, and the refusal is what get_status shows.
    await post(detailsRequested(second));
    await slack.waitForCall('entity.presentDetails');
    let refusedMethod: unknown;
    let reading: Promise<void> | null = null;
    await slack.waitFor(() => {
      reading ??= slackFeatures().then((f) => {
        refusedMethod = f?.work_objects?.method;
        reading = null;
      });
      return refusedMethod === 'entity.presentDetails';
    }, 'the refusal of entity.presentDetails recorded');
    await reading;
    expect(slack.workObjects.presented).toHaveLength(0);
    expect(appLog.take('Slack answered feature_not_enabled to chat.postMessage')).toHaveLength(1);
  });
});
