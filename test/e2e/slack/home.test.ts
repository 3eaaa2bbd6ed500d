import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack, type ApiCall } from '../../support/fake-slack';
import { blockActions, eventCallback, interactionBody, viewSubmission } from '../../support/slack-payloads';
import { homeBlockActions } from '../../support/slack-home-payloads';
import { showsLiterally } from '../../support/hostile';

type Block = {
  type: string;
  block_id?: string;
  text?: { text: string };
  element?: { initial_option?: { value: string }; options?: Array<{ value: string }> };
  elements?: Array<{ action_id?: string; value?: string; confirm?: unknown }>;
  accessory?: { action_id?: string };
};
type View = { type: string; callback_id?: string; private_metadata?: string; blocks: Block[] };

describe('App Home through the real Bolt app: first steps, urgency order, buttons without response_url', () => {
  let app: TestApp;
  let slack: FakeSlack;

  beforeEach(async () => {
    app = await startTestApp();
    slack = app.slack;
  });
  afterEach(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args, { source: 'system' });
  const post = (body: string | Record<string, unknown>, json = false) =>
    FakeSlack.postToApp(app.url, body, { signingSecret: app.signingSecret, ...(json && { contentType: 'json' as const }) });
  const clickOnHome = (actionId: string, value = 'home') => post(interactionBody(homeBlockActions({ actionId, value })));
  const submit = (view: View, values: Record<string, Record<string, Record<string, unknown>>>) =>
    post(interactionBody(viewSubmission({ callbackId: view.callback_id!, values, privateMetadata: view.private_metadata })));
  const openHome = () =>
    post(eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home', event_ts: '1700000000.1' }), true);

  const published = (i = -1): View => slack.callsTo('views.publish').at(i)!.args.view as View;
  const text = (view: View) => JSON.stringify(view.blocks);
  const nextPublish = async (after: number): Promise<View> => {
    await slack.waitForCall('views.publish', () => slack.callsTo('views.publish').length > after);
    return published();
  };
  /** The Home published after the `after`-th one that carries `note`: a click's answer, not a refresh an event triggered. */
  const publishWith = async (after: number, note: string): Promise<View> => {
    const later = () =>
      slack
        .callsTo('views.publish')
        .slice(after)
        .map((c) => c.args.view as View);
    await slack.waitFor(() => later().some((v) => text(v).includes(note)), `a Home showing ${note}`);
    return later().find((v) => text(v).includes(note))!;
  };
  const actionIds = (view: View) =>
    view.blocks.flatMap((b) => [...(b.elements ?? []).map((e) => e.action_id), b.accessory?.action_id]).filter(Boolean);

  it('offers the first steps on a fresh install and walks a new person through them with modals', async () => {
    await openHome();
    const fresh = await nextPublish(0);
    expect(text(fresh)).toContain('Welcome to Agent Queue');
    expect(actionIds(fresh)).toEqual(expect.arrayContaining(['aq_open_new_project', 'aq_create_first_agent', 'aq_open_new_task']));
    expect(actionIds(fresh)).not.toContain('aq_open_add_repo'); // a repository needs a project first
    expect(text(fresh)).not.toMatch(/AWAITING_APPROVAL|IN_PROGRESS|READY\b/);

    // New task with zero projects: the modal asks for a project name and creates both.
    await clickOnHome('aq_open_new_task', 'first');
    const open = await slack.waitForCall('views.open');
    expect(open.args.trigger_id).toEqual(expect.any(String));
    const modal = open.args.view as View;
    expect(modal.blocks.map((b) => b.block_id).filter(Boolean)).toEqual([
      'new_project',
      'title',
      'description',
      'priority',
      'depends_on',
      'approval',
    ]);
    const refused = await submit(modal, {
      new_project: { value: { type: 'plain_text_input', value: '' } },
      title: { value: { type: 'plain_text_input', value: 'x' } },
      description: { value: { type: 'plain_text_input', value: 'y' } },
    });
    expect(JSON.parse(refused.body)).toEqual({ response_action: 'errors', errors: { new_project: 'Name the project to create.' } });

    const before = slack.callsTo('views.publish').length;
    const ok = await submit(modal, {
      new_project: { value: { type: 'plain_text_input', value: 'Website' } },
      title: { value: { type: 'plain_text_input', value: 'Fix the login' } },
      description: { value: { type: 'plain_text_input', value: 'It loops.' } },
      priority: { value: { type: 'number_input', value: '5' } },
      depends_on: { value: { type: 'plain_text_input', value: '' } },
    });
    expect(ok.status).toBe(200);
    await publishWith(before, 'Queued *Fix the login*');
    const tasks = (await exec('list_tasks', { project_id: 'website' })) as { tasks: Array<{ title: string; priority: number }> };
    expect(tasks.tasks).toEqual([expect.objectContaining({ title: 'Fix the login', priority: 5 })]);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(0); // told on the Home, not by DM

    // The remaining first step: an agent, with one click.
    const n = slack.callsTo('views.publish').length;
    await clickOnHome('aq_create_first_agent', 'first');
    await publishWith(n, 'Added agent *claude-1*');
    expect(((await exec('list_agents')) as { agents: Array<{ id: string }> }).agents.map((a) => a.id)).toEqual(['claude-1']);
    // A double click adds no second agent.
    const m = slack.callsTo('views.publish').length;
    await clickOnHome('aq_create_first_agent', 'first');
    await publishWith(m, 'Nothing to do: you already have an agent');
    expect(((await exec('list_agents')) as { agents: Array<{ id: string }> }).agents).toHaveLength(1);
  });

  it('prefills the New task modal with the channel project and offers depends-on and priority', async () => {
    await exec('create_project', { name: 'alpha', auto_create_channels: false });
    await exec('create_project', { name: 'beta', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'beta', channel_id: 'CBETA' });
    const upstream = (await exec('create_task', { project_id: 'beta', title: 'Schema first', description: 'd' })).created as string;
    await post(
      interactionBody(
        blockActions({ actionId: 'aq_open_new_task', value: 'channel', channelId: 'CBETA', responseUrl: slack.responseUrl('nt') }),
      ),
    );
    const modal = (await slack.waitForCall('views.open')).args.view as View;
    expect(modal.blocks.find((b) => b.block_id === 'project')!.element!.initial_option!.value).toBe('beta');
    expect(modal.blocks.find((b) => b.block_id === 'depends_on')!.element!.options!.map((o) => o.value)).toEqual([upstream]);
    expect(modal.blocks.find((b) => b.block_id === 'priority')).toBeDefined();

    await submit(modal, {
      project: { value: { type: 'static_select', selected_option: { value: 'beta' } } },
      title: { value: { type: 'plain_text_input', value: 'Then the API' } },
      description: { value: { type: 'plain_text_input', value: 'd' } },
      depends_on: { value: { type: 'multi_static_select', selected_options: [{ value: upstream }] } },
    });
    const told = await slack.waitForCall('chat.postEphemeral');
    expect(told.args).toMatchObject({ channel: 'CBETA', user: 'U1' });
    const created = (
      (await exec('list_tasks', { project_id: 'beta', status: 'DEFINED' })) as { tasks: Array<{ id: string; title: string }> }
    ).tasks;
    expect(created.map((t) => t.title)).toEqual(['Then the API']);
    expect(JSON.stringify(told.args.blocks)).toContain('Then the API');
  });

  it('orders the Home by urgency, in words, with the error first line and working buttons', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('create_agent', { name: 'claude-1' });
    const mk = async (title: string, status?: string) => {
      const id = (await exec('create_task', { project_id: 'p', title, description: 'd' })).created as string;
      if (status) await exec('set_task_status', { task_id: id, status });
      return id;
    };
    const review = await mk('Review me', 'AWAITING_APPROVAL');
    const broken = await mk('Broken build', 'FAILED');
    await app.started.runtime.db.taskResults.add({
      taskId: broken,
      agentId: null,
      result: 'FAILED',
      summary: null,
      errorMessage: '\nnpm test exited 1: 3 suites failed\n    at Object.<anonymous> (build.js:1:1)',
      filesChanged: null,
      tokensUsed: 0,
      costUsd: 0,
      sessionId: null,
    });
    for (let i = 0; i < 14; i++) await mk(`Queued ${i}`);
    await exec('pause_project', { project_id: 'p' });
    await exec('orchestrator_control', { action: 'pause' });

    await openHome();
    const home = await nextPublish(0);
    const body = text(home);
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    const order = ['Needs you', 'Review me', 'Broken build', 'Ready queue', 'Paused projects'].map((s) => body.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(body).toContain('npm test exited 1: 3 suites failed');
    expect(body).not.toContain('build.js');
    expect(body).toContain('2 tasks need you');
    // All 14 ready tasks are in the queue's table (home-data-table.test.ts), none left to mention.
    expect(body).toContain('"text":"Queued 13"');
    expect(body).not.toContain('more tasks waiting');
    expect(body).toContain('Scheduling is paused');
    expect(body).toContain('⏳ Not starting: '); // the scheduler's reason, in words
    expect(body).not.toMatch(/AWAITING_APPROVAL|"FAILED"|IN_PROGRESS/);
    expect(actionIds(home)).toEqual(
      expect.arrayContaining([
        'aq_approve_task',
        'aq_restart_task',
        'aq_skip_task',
        'aq_get_agent_error',
        'aq_resume_project',
        'aq_resume_scheduling',
      ]),
    );
    const approveRow = home.blocks.find((b) => b.elements?.some((e) => e.action_id === 'aq_approve_task' && e.value === review))!;
    expect(approveRow.elements!.map((e) => e.action_id)).toEqual(['aq_approve_task', 'aq_request_changes', 'aq_restart_task']);

    // Approve from the Home: no response_url, so the answer is a refreshed Home with a note.
    let n = slack.callsTo('views.publish').length;
    expect((await clickOnHome('aq_approve_task', review)).status).toBe(200);
    let after = await publishWith(n, 'Approved *Review me*');
    expect((await exec('get_task', { task_id: review })).status).toBe('COMPLETED');
    expect(slack.responses).toHaveLength(0);

    // A double click is answered politely, in words.
    n = slack.callsTo('views.publish').length;
    await clickOnHome('aq_approve_task', review);
    await publishWith(n, 'Nothing to do: *Review me* is already completed.');

    // A stale button for a deleted task.
    await exec('delete_task', { task_id: broken });
    n = slack.callsTo('views.publish').length;
    await clickOnHome('aq_skip_task', broken);
    await publishWith(n, 'That task no longer exists');

    // Resume buttons.
    n = slack.callsTo('views.publish').length;
    await clickOnHome('aq_resume_scheduling', 'resume');
    after = await publishWith(n, 'Scheduling resumed');
    expect(text(after)).not.toContain('Scheduling is paused');
    n = slack.callsTo('views.publish').length;
    await clickOnHome('aq_resume_project', 'p');
    after = await publishWith(n, 'Resumed *p*');
    expect(text(after)).not.toContain('Paused projects');
    expect(slack.responses).toHaveLength(0);
  });

  it('puts a task whose agent waits for an answer first in Needs you, with Stop', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    const review = (await exec('create_task', { project_id: 'p', title: 'Review me', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: review, status: 'AWAITING_APPROVAL' });
    const asking = (await exec('create_task', { project_id: 'p', title: 'Asks a question', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: asking, status: 'WAITING_INPUT' });
    const question = 'Keep the old <cookie> name & path?';
    await app.started.runtime.db.agentRequests.add({
      taskId: asking,
      projectId: 'p',
      kind: 'question',
      payload: { questions: [{ question, options: [] }] },
      expiresAt: null,
    });
    await openHome();
    const body = text(await nextPublish(0));
    expect(body).toContain('2 tasks need you');
    expect(body.indexOf('Asks a question')).toBeLessThan(body.indexOf('Review me'));
    expect(body).toContain('waiting for your answer');
    // What the agent asks, shown literally, so a person knows what to answer before opening the thread.
    expect(showsLiterally(published().blocks, `Asks: ${question}`)).toBe(true);
    expect(body).toContain(`"value":"${asking}"`);
    expect(actionIds(published())).toContain('aq_stop_task');
  });

  it('stays within 100 blocks however long the lists are, saying how many more there are', async () => {
    for (let i = 0; i < 12; i++) {
      await exec('create_project', { name: `p${i}`, auto_create_channels: false });
      await exec('pause_project', { project_id: `p${i}` });
    }
    for (const [status, n] of [
      ['FAILED', 15],
      ['AWAITING_APPROVAL', 15],
      ['IN_PROGRESS', 15],
      ['READY', 25],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const id = (await exec('create_task', { project_id: 'p0', title: `${status} ${i}`, description: 'd' })).created as string;
        if (status !== 'READY') await exec('set_task_status', { task_id: id, status });
      }
    }
    await openHome();
    const home = await nextPublish(0);
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    const body = text(home);
    expect(body).toContain('22 more tasks need you');
    expect(body).toContain('7 more tasks running');
    // The ready queue is a table of all 25, not ten and "15 more".
    expect(body).toContain('"text":"READY 24"');
    expect(body).not.toContain('more tasks waiting');
    expect(body).toContain('7 more paused');
  });

  it('shows an error in a modal from the Home and carries a confirm dialog on Stop', async () => {
    await exec('create_project', { name: 'p', auto_create_channels: false });
    const failed = (await exec('create_task', { project_id: 'p', title: 'Flaky', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: failed, status: 'FAILED' });
    const running = (await exec('create_task', { project_id: 'p', title: 'Busy', description: 'd' })).created as string;
    await exec('set_task_status', { task_id: running, status: 'IN_PROGRESS' });
    await app.started.runtime.db.tasks.update(running, {
      startedAt: new Date(Date.now() - 12 * 60_000 - 5_000),
      assignedAgent: 'claude-7',
    });
    await app.started.runtime.events.emit('task_progress', {
      projectId: 'p',
      taskId: running,
      payload: { text: 'Read · a.ts\nEdit · src/busy.ts' },
    });
    await openHome();
    const home = await nextPublish(0);
    expect(text(home)).toContain('Running');
    expect(text(home)).toContain('Edit · src/busy.ts'); // the last progress line
    expect(text(home)).toContain('agent claude-7 · for 12m');
    expect(text(home)).not.toContain('Read · a.ts');
    const stop = home.blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'aq_stop_task')!;
    expect(stop.confirm).toMatchObject({ title: { text: 'Stop this task?' }, confirm: { text: 'Stop it' } });

    await clickOnHome('aq_get_agent_error', failed);
    const open: ApiCall = await slack.waitForCall('views.open');
    expect((open.args.view as View).type).toBe('modal');
    expect(JSON.stringify((open.args.view as View).blocks)).toContain('Flaky');
  });
});
