// @database-dependent: a proposal is decided once by a conditional update, held-run entries by the (automation, dedup key) index, and the rate limit by counting the run log.
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeAnthropic, type RecordedRequest } from '../../support/fake-anthropic';
import { FakeSlack, type ApiCall } from '../../support/fake-slack';
import { blockActions, eventCallback, interactionBody, nextTs, viewSubmission } from '../../support/slack-payloads';
import { showsSomewhere } from '../../support/hostile';

const INTAKE = 'CBUGS';
const ELSEWHERE = 'CCHAT';

describe('channel intake: messages in an intake channel are triaged by the model through the real Bolt app', () => {
  let app: TestApp;
  let model: FakeAnthropic;
  let slack: FakeSlack;

  const post = (body: unknown, json = true) =>
    FakeSlack.postToApp(app.url, typeof body === 'string' ? body : JSON.stringify(body), {
      signingSecret: app.signingSecret,
      ...(json && { contentType: 'json' as const }),
    });
  const message = async (channel: string, text: string, user = 'U1') => {
    const ts = nextTs();
    const response = await post(eventCallback({ type: 'message', channel, channel_type: 'channel', user, text, ts, event_ts: ts }));
    expect(response.status).toBe(200);
    return ts;
  };
  /** A message Slack keeps (conversations.history finds it) and delivers to the app. */
  const say = async (text: string, user = 'U1') => {
    const event = slack.userSays({ channel: INTAKE, text, user });
    expect((await post(eventCallback(event))).status).toBe(200);
    return event.ts;
  };
  const repliesIn = (ts: string) => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === ts);
  const triaged = (ts: string) => slack.waitForCall('reactions.remove', (c: ApiCall) => c.args.timestamp === ts && c.args.name === 'eyes');
  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args) as Promise<Record<string, unknown>>;
  const verdict = (input: Record<string, unknown>) => ({ toolUses: [{ name: 'triage', input }] });

  beforeEach(async () => {
    model = await FakeAnthropic.start();
    // An admin list, so a click by someone else (not the reporter) can be refused.
    app = await startTestApp({
      ANTHROPIC_API_KEY: 'sk-fake',
      ANTHROPIC_BASE_URL: model.url,
      AQ_CHAT_MODEL: 'fake-model-1',
      AQ_ADMINS: 'UADMIN',
    });
    slack = app.slack;
    await exec('create_project', { name: 'web' });
    expect(await exec('create_automation', { name: 'Bugs', kind: 'intake', project_id: 'web', channel_id: INTAKE })).toMatchObject({
      created: 'bugs',
    });
  });
  afterEach(async () => {
    await app.stop();
    await model.close();
  });

  it('proposes one task for a bug, links a repeat to it, ignores chatter, and never reads another channel', async () => {
    const unread = await message(ELSEWHERE, 'the login page is broken <b>again</b>');

    // A reported bug: 👀 while the model decides, then a proposal in the thread with buttons.
    model.enqueue(verdict({ kind: 'bug', title: 'Fix the <login> page crash', description: 'Login crashes on submit.', priority: 50 }));
    const bug = await message(INTAKE, 'Login crashes when I press submit <!channel>');
    await triaged(bug);
    expect(slack.callsTo('reactions.add').map((c) => c.args)).toEqual([expect.objectContaining({ timestamp: bug, name: 'eyes' })]);
    const [proposal] = repliesIn(bug);
    expect(proposal.args.channel).toBe(INTAKE);
    expect(showsSomewhere(proposal.args.blocks, 'Fix the <login> page crash')).toBe(true);
    const summary = (proposal.args.blocks as Array<{ text?: { text: string } }>)[0].text!.text;
    expect(summary).toContain('&lt;login&gt;');
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(0);
    const sent = model.requests[0].body.messages?.[0] as { content: string };
    expect(sent.content).toContain('Login crashes when I press submit');

    // The reporter clicks Create (the command takes it from the reporter, the intake's owner or an admin).
    const buttons = (proposal.args.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    )!.elements!;
    const create = buttons.find((b) => b.action_id === 'aq_intake_create')!;
    const click = (responseId: string) =>
      post(
        interactionBody(
          blockActions({
            actionId: create.action_id,
            value: create.value,
            responseUrl: slack.responseUrl(responseId),
            channelId: INTAKE,
            messageTs: nextTs(),
            userId: 'U1',
          }),
        ),
        false,
      );
    await click('create');
    const done = await slack.waitForResponse((r) => r.id === 'create');
    const tasks = (await exec('list_tasks', { project_id: 'web' })) as { tasks: Array<{ id: string; title: string; priority: number }> };
    expect(tasks.tasks).toEqual([expect.objectContaining({ title: 'Fix the <login> page crash', priority: 50 })]);
    const taskId = tasks.tasks[0].id;
    expect(String(done.body.text)).toContain(taskId);
    expect(String(done.body.text)).toContain('&lt;login&gt;');
    // A second click on the same proposal creates nothing.
    await click('again');
    const again = await slack.waitForResponse((r) => r.id === 'again');
    expect(JSON.stringify(again.body)).toContain('already created or dismissed');
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(1);
    expect(await exec('get_task', { task_id: taskId })).toMatchObject({ source_url: expect.stringContaining(INTAKE) });

    // The same bug reported again: the model sees the first task and links it; no second task.
    model.enqueue((request: RecordedRequest) => {
      expect(JSON.stringify(request.body.messages)).toContain(taskId);
      return verdict({ kind: 'duplicate', duplicate_of: taskId });
    });
    const repeat = await message(INTAKE, 'login is crashing for me too', 'U2');
    await triaged(repeat);
    expect(repliesIn(repeat)).toHaveLength(1);
    expect(String(repliesIn(repeat)[0].args.text)).toContain(taskId);
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(1);

    // Chatter: no reply, no task, and the log says why without keeping the text.
    model.enqueue(verdict({ kind: 'chatter' }));
    const chatter = await message(INTAKE, 'thanks all, lunch at noon?', 'U3');
    await triaged(chatter);
    expect(repliesIn(chatter)).toHaveLength(0);
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(1);

    const runs = (await exec('list_automation_runs', { automation_id: 'bugs' })) as {
      runs: Array<{ outcome: string; reason: string | null; task_id: string | null }>;
    };
    // The proposal's run became the created one: it counts once against the rate limit.
    expect(runs.runs.map((r) => r.outcome)).toEqual(['skipped', 'linked', 'created']);
    expect(runs.runs[2].task_id).toBe(taskId);
    expect(runs.runs[1].task_id).toBe(taskId);
    expect(JSON.stringify(runs)).not.toContain('lunch');

    // The message in the channel without intake: never sent to the model, never reacted to or answered.
    expect(model.requests).toHaveLength(3);
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain('broken');
    expect(slack.callsTo('reactions.add').some((c) => c.args.timestamp === unread)).toBe(false);
    expect(repliesIn(unread)).toHaveLength(0);
  });

  it('creates the task directly under policy create, within the rate limit', async () => {
    await exec('edit_automation', { automation_id: 'bugs', policy: 'create', rate_limit_per_hour: 1 });
    model.enqueue(verdict({ kind: 'chore', title: 'Bump the lodash version', description: 'Update lodash to the latest 4.x.' }));
    const first = await message(INTAKE, 'can someone bump lodash?');
    await triaged(first);
    const tasks = (await exec('list_tasks', { project_id: 'web' })) as { tasks: Array<{ id: string }> };
    expect(tasks.tasks).toHaveLength(1);
    expect(String(repliesIn(first)[0].args.text)).toContain(tasks.tasks[0].id);

    // The reporter's own thread steers the task as the task's thread does, under the same rule:
    // the project's steerers and admins only.
    const replyInReport = async (text: string) => {
      const ts = nextTs();
      await post(
        eventCallback({ type: 'message', channel: INTAKE, channel_type: 'channel', user: 'U1', text, ts, thread_ts: first, event_ts: ts }),
      );
      return ts;
    };
    await replyInReport('only the 4.x line');
    const refused = await slack.waitForCall('chat.postEphemeral', (c: ApiCall) => c.args.thread_ts === first);
    expect(String(refused.args.text)).toContain(`did not reach the agent of \`${tasks.tasks[0].id}\``);
    // A steerer, once the task has finished: the reply becomes its follow-up.
    await exec('set_project_steerers', { project_id: 'web', user_ids: ['U1'] });
    await exec('set_task_status', { task_id: tasks.tasks[0].id, status: 'COMPLETED' });
    const reply = await replyInReport('only the 4.x line, please');
    await slack.waitForCall('reactions.add', (c: ApiCall) => c.args.timestamp === reply && c.args.name === 'eyes');
    const { events } = (await exec('get_recent_events', { limit: 10 })) as {
      events: Array<{ type: string; task_id: string | null; payload: Record<string, unknown> }>;
    };
    expect(events.some((e) => e.task_id === tasks.tasks[0].id && JSON.stringify(e.payload).includes('only the 4.x line, please'))).toBe(
      true,
    );

    // Over the limit the model is not even asked, and the run log says why.
    const skipped = new Promise<void>((resolve) => {
      const stop = app.started.runtime.events.subscribe((e) => {
        if (e.type === 'automation_skipped') {
          stop();
          resolve();
        }
      });
    });
    const second = await message(INTAKE, 'and bump react too please');
    await skipped;
    const runs = (await exec('list_automation_runs', { automation_id: 'bugs' })) as { runs: Array<{ outcome: string; reason: string }> };
    expect(runs.runs.map((r) => r.outcome)).toEqual(['skipped', 'created']);
    expect(runs.runs[0].reason).toContain('Rate limit');
    expect(model.requests).toHaveLength(1);
    expect(repliesIn(second)).toHaveLength(0);

    // More messages while it is held: each is left alone, and the log keeps the one entry.
    for (const text of ['and vue', 'and svelte']) {
      expect(await exec('match_intake', { channel_id: INTAKE, user_id: 'U1', text })).toEqual({
        automation_id: null,
        skipped: expect.stringContaining('Rate limit'),
      });
    }
    const after = (await exec('list_automation_runs', { automation_id: 'bugs' })) as { runs: Array<{ outcome: string }> };
    expect(after.runs.map((r) => r.outcome)).toEqual(['skipped', 'created']);
  });

  it('Edit opens the proposal in a modal, and what the person writes there becomes the task', async () => {
    model.enqueue(verdict({ kind: 'bug', title: 'Fix the <chart> legend', description: 'The legend overlaps.', priority: 40 }));
    const report = await message(INTAKE, 'the chart legend overlaps the bars');
    await triaged(report);
    const proposal = repliesIn(report)[0];
    const actions = (proposal.args.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    )!.elements!;
    expect(actions.map((b) => b.action_id)).toEqual(['aq_intake_create', 'aq_intake_edit', 'aq_intake_dismiss']);
    const proposalTs = nextTs();
    const edit = actions.find((b) => b.action_id === 'aq_intake_edit')!;
    await post(
      interactionBody(
        blockActions({
          actionId: edit.action_id,
          value: edit.value,
          responseUrl: slack.responseUrl('edit'),
          channelId: INTAKE,
          messageTs: proposalTs,
        }),
      ),
      false,
    );
    type Input = { block_id: string; element?: { initial_value?: string } };
    const modal = (await slack.waitForCall('views.open')).args.view as { callback_id: string; private_metadata: string; blocks: Input[] };
    const initial = Object.fromEntries(modal.blocks.filter((b) => b.element).map((b) => [b.block_id, b.element?.initial_value]));
    expect(initial).toEqual({ title: 'Fix the <chart> legend', description: 'The legend overlaps.', priority: '40' });

    const submit = (values: Record<string, string>, userId = 'U1') =>
      post(
        interactionBody(
          viewSubmission({
            callbackId: modal.callback_id,
            privateMetadata: modal.private_metadata,
            userId,
            values: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: { type: 'plain_text_input', value: v } }])),
          }),
        ),
        false,
      );
    const refused = await submit({ title: ' ', description: 'd', priority: 'soon' });
    expect(JSON.parse(refused.body)).toEqual({
      response_action: 'errors',
      errors: { title: 'Give the task a title.', priority: 'A whole number, 0 or more (lower runs first).' },
    });
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(0);

    // Someone who is neither the reporter, the owner nor an admin: told so, nothing created.
    await submit({ title: 'Not mine', description: 'd', priority: '1' }, 'U9');
    const told = await slack.waitForCall('chat.postEphemeral', (c: ApiCall) => c.args.user === 'U9');
    expect(String(told.args.text)).toContain('Only the person who reported this');
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(0);

    await submit({ title: 'Fix the legend <overlap>', description: 'Move the legend below the chart.', priority: '7' });
    const updated = await slack.waitForCall('chat.update', (c: ApiCall) => c.args.ts === proposalTs);
    const tasks = (await exec('list_tasks', { project_id: 'web' })) as { tasks: Array<{ id: string; title: string; priority: number }> };
    expect(tasks.tasks).toEqual([expect.objectContaining({ title: 'Fix the legend <overlap>', priority: 7 })]);
    expect(await exec('get_task', { task_id: tasks.tasks[0].id })).toMatchObject({ description: 'Move the legend below the chart.' });
    expect(updated.args).toMatchObject({ channel: INTAKE, blocks: [] });
    expect(String(updated.args.text)).toContain(tasks.tasks[0].id);
    expect(String(updated.args.text)).toContain('&lt;overlap&gt;');
    // The proposal is decided: its Create button makes no second task.
    const create = actions.find((b) => b.action_id === 'aq_intake_create')!;
    await post(
      interactionBody(
        blockActions({ actionId: create.action_id, value: create.value, responseUrl: slack.responseUrl('late'), channelId: INTAKE }),
      ),
      false,
    );
    expect(JSON.stringify((await slack.waitForResponse((r) => r.id === 'late')).body)).toContain('already created or dismissed');
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(1);
  });

  it('with a reaction trigger, only a message someone adds that reaction to is read and triaged', async () => {
    await exec('edit_automation', { automation_id: 'bugs', reaction: ':bug:', pattern: 'crash' });
    const react = async (ts: string, reaction: string, user = 'U2') => {
      const response = await post(
        eventCallback({
          type: 'reaction_added',
          user,
          reaction,
          item_user: 'U1',
          item: { type: 'message', channel: INTAKE, ts },
          event_ts: nextTs(),
        }),
      );
      expect(response.status).toBe(200);
    };
    // Posted messages alone fire nothing: Slack keeps them; the app does not read them yet.
    const crash = await say('The app crashes when I upload a PNG');
    const other = await say('The footer colour is off');

    // Another reaction, and the trigger on a message that fails the pattern: not triaged.
    await react(crash, 'thumbsup');
    await react(other, 'bug');
    // Its text is read (the pattern is checked only then), and it goes no further.
    await slack.waitForCall('conversations.history', (c: ApiCall) => c.args.latest === other);
    model.enqueue(verdict({ kind: 'bug', title: 'Fix the crash on PNG upload', description: 'Uploading a PNG crashes the app.' }));
    await react(crash, 'bug');
    await triaged(crash);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0].body.messages)).toContain('crashes when I upload a PNG');
    expect(showsSomewhere(repliesIn(crash)[0].args.blocks, 'Fix the crash on PNG upload')).toBe(true);
    expect(repliesIn(other)).toHaveLength(0);
    expect(slack.callsTo('reactions.add').map((c) => c.args.timestamp)).toEqual([crash]);
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(0);
  });

  it('when the model does not answer, says so with a Try again button that triages the message anew', async () => {
    const failure = { error: { status: 500, type: 'api_error', message: 'overloaded' } };
    model.enqueue(failure, failure, failure);
    const report = await say('Search returns nothing for quoted words', 'U1');
    await triaged(report);
    const [sorry] = repliesIn(report);
    expect(String(sorry.args.text)).toContain('could not triage');
    const retry = (sorry.args.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    )!.elements![0];
    expect(retry.action_id).toBe('aq_intake_retry');

    model.enqueue(verdict({ kind: 'bug', title: 'Fix quoted search', description: 'Quoted words find nothing.' }));
    await post(
      interactionBody(
        blockActions({ actionId: retry.action_id, value: retry.value, responseUrl: slack.responseUrl('retry'), channelId: INTAKE }),
      ),
      false,
    );
    expect(String((await slack.waitForResponse((r) => r.id === 'retry')).body.text)).toContain('again');
    await slack.waitForCall('chat.postMessage', (c: ApiCall) => c.args.thread_ts === report && repliesIn(report).length === 2);
    expect(showsSomewhere(repliesIn(report)[1].args.blocks, 'Fix quoted search')).toBe(true);
    expect(JSON.stringify(model.requests.at(-1)?.body.messages)).toContain('Search returns nothing for quoted words');
  });

  it('dismisses a proposal once, creating nothing', async () => {
    model.enqueue(verdict({ kind: 'feature', title: 'Add CSV export', description: 'Export the report as CSV.' }));
    const ask = await message(INTAKE, 'could we export reports as csv?');
    await triaged(ask);
    const actions = (repliesIn(ask)[0].args.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    )!.elements!;
    const clickOn = (actionId: string, responseId: string) => {
      const button = actions.find((b) => b.action_id === actionId)!;
      return post(
        interactionBody(blockActions({ actionId, value: button.value, responseUrl: slack.responseUrl(responseId), channelId: INTAKE })),
        false,
      );
    };
    await clickOn('aq_intake_dismiss', 'dismiss');
    expect(String((await slack.waitForResponse((r) => r.id === 'dismiss')).body.text)).toContain('no task was created');
    await clickOn('aq_intake_create', 'late');
    expect(JSON.stringify((await slack.waitForResponse((r) => r.id === 'late')).body)).toContain('already created or dismissed');
    expect((await exec('list_tasks', { project_id: 'web' })).total).toBe(0);
    const runs = (await exec('list_automation_runs', { automation_id: 'bugs' })) as { runs: Array<{ outcome: string; reason: string }> };
    expect(runs.runs).toEqual([expect.objectContaining({ outcome: 'skipped', reason: expect.stringContaining('dismissed') })]);
  });
});
