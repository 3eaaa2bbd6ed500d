import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTasksFromPlan } from '../../../src/orchestrator/auto-task';
import type { ApiCall, FakeSlack } from '../../support/fake-slack';
import { AppLog } from '../../support/app-log';
import { startTestApp, type TestApp } from '../../support/slack-app';

const PLAN = `# Ship the widget

## Step 1: Add the model

Create src/model.ts with the Widget type and its fields.

## Step 2: Add the <view> & styles

Render the widget in src/view.ts using the model from step 1.

## Step 3: Wire it up

Export both from src/index.ts and add a smoke test.
`;

type Card = { type: string; task_id: string; title: string; status: string };

/**
 * A plan the agent wrote, through the real app and notifier against the fake Slack: one plan
 * block of task cards in the parent's thread (and room), updated in place as the steps' tasks
 * move; where Slack refuses the block, the list of steps, decided once.
 */
describe('plans as plan blocks of task cards', () => {
  let app: TestApp;
  let appLog: AppLog;
  let slack: FakeSlack;

  beforeEach(async () => {
    appLog = new AppLog();
    app = await startTestApp({}, { log: appLog.log });
    slack = app.slack;
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'p', channel_id: 'CP' });
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
  const settle = () => app.started.notifier.idle();
  const planOf = (call: ApiCall) => (call.args.blocks as Array<Record<string, unknown>> | undefined)?.find((b) => b.type === 'plan');
  const cardsOf = (call: ApiCall) => (planOf(call)?.tasks ?? []) as Card[];

  /** A running task whose agent leaves a plan: its thread (and room) are open, then the plan becomes its steps. */
  async function taskWithPlan(
    title: string,
    requiresApproval: boolean,
    beforePlan: () => void = () => undefined,
  ): Promise<{ parentId: string; steps: string[] }> {
    const parentId = (await exec('create_task', { project_id: 'p', title, description: 'd', requires_approval: requiresApproval }))
      .created as string;
    await exec('set_task_status', { task_id: parentId, status: 'IN_PROGRESS' });
    await rt().events.emit('task_started', { projectId: 'p', taskId: parentId, payload: { title } });
    await settle();
    const workspace = path.join(app.home, `ws-${parentId}`);
    await mkdir(path.join(workspace, '.agent'), { recursive: true });
    await writeFile(path.join(workspace, '.agent', 'plan.md'), PLAN);
    const parent = (await rt().db.tasks.get(parentId))!;
    beforePlan();
    const outcome = await createTasksFromPlan(
      { db: rt().db, events: rt().events, config: rt().config, commitAll: async () => undefined, log: () => undefined },
      parent,
      workspace,
      new Date(Date.now() - 60_000),
    );
    if (outcome.kind !== 'created') throw new Error(`the plan was not turned into tasks: ${JSON.stringify(outcome)}`);
    await settle();
    return { parentId, steps: outcome.tasks.map((t) => t.id) };
  }

  it('posts one plan block in the thread and the room, and ticks the same messages as steps complete', async () => {
    const { parentId, steps } = await taskWithPlan('Plan the widget', true);
    const thread = (await rt().db.taskThreads.get(parentId))!;
    const room = slack.rooms.bySession(parentId)!;
    expect(room).toBeDefined();

    const posts = slack.callsTo('chat.postMessage').filter((c) => planOf(c));
    expect(posts.map((c) => [c.args.channel, c.args.thread_ts])).toEqual([
      [thread.channelId, thread.threadTs],
      [room.channel_id, undefined],
    ]);
    const [inThread] = posts;
    expect(planOf(inThread)?.title).toBe('Plan of Plan the widget · 3 tasks');
    expect(cardsOf(inThread)).toEqual([
      { type: 'task_card', task_id: steps[0], title: 'Add the model', status: 'pending' },
      { type: 'task_card', task_id: steps[1], title: 'Add the <view> & styles', status: 'pending' },
      { type: 'task_card', task_id: steps[2], title: 'Wire it up', status: 'pending' },
    ]);
    expect(inThread.args.text).toBe('🗺️ Plan of Plan the widget · 3 tasks: 0 of 3 done');
    // The plan is this one message: no second list of the same steps in the thread.
    expect(slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).includes('Plan became'))).toHaveLength(0);

    slack.clearCalls();
    await exec('set_task_status', { task_id: steps[0], status: 'IN_PROGRESS' });
    await rt().events.emit('task_started', { projectId: 'p', taskId: steps[0], payload: { title: 'Add the model' } });
    await exec('set_task_status', { task_id: steps[0], status: 'COMPLETED' });
    await rt().events.emit('task_completed', { projectId: 'p', taskId: steps[0], payload: { title: 'Add the model' } });
    await settle();
    const updates = slack.callsTo('chat.update').filter((c) => planOf(c));
    const last = (channel: string) => updates.filter((u) => u.args.channel === channel).at(-1)!;
    // The same message, edited: the thread still holds one plan, now with the first card complete.
    const plansInThread = slack
      .threadMessages(thread.channelId, thread.threadTs)
      .filter((m) => JSON.stringify(m.blocks ?? []).includes('"plan"'));
    expect(plansInThread).toHaveLength(1);
    expect(last(thread.channelId).args.ts).toBe(plansInThread[0].ts);
    expect(new Set(updates.filter((u) => u.args.channel === room.channel_id).map((u) => u.args.ts)).size).toBe(1);
    expect(cardsOf(last(thread.channelId)).map((c) => c.status)).toEqual(['complete', 'pending', 'pending']);
    expect(cardsOf(last(room.channel_id)).map((c) => c.status)).toEqual(['complete', 'pending', 'pending']);
    expect(last(thread.channelId).args.text).toBe('🗺️ Plan of Plan the widget · 3 tasks: 1 of 3 done');
    expect(slack.callsTo('chat.postMessage').filter((c) => planOf(c))).toHaveLength(0);

    // A step that fails for good shows as an error; one that did not change the plan sends nothing.
    slack.clearCalls();
    await exec('set_task_status', { task_id: steps[1], status: 'BLOCKED' });
    await settle();
    expect(cardsOf(slack.callsTo('chat.update').filter((c) => planOf(c))[0]).map((c) => c.status)).toEqual([
      'complete',
      'error',
      'pending',
    ]);
    slack.clearCalls();
    await rt().events.emit('task_updated', { projectId: 'p', taskId: steps[2], payload: { fields: ['priority'] } });
    await settle();
    expect(slack.callsTo('chat.update').filter((c) => planOf(c))).toHaveLength(0);

    // Once the room is archived, its message is left alone; the thread's still ticks.
    slack.setResponse('chat.update', (args) =>
      args.channel === room.channel_id
        ? { ok: false, error: 'is_archived' }
        : { ok: true, channel: String(args.channel), ts: String(args.ts) },
    );
    slack.clearCalls();
    await exec('set_task_status', { task_id: steps[2], status: 'COMPLETED' });
    await settle();
    await exec('set_task_status', { task_id: steps[1], status: 'COMPLETED' });
    await settle();
    const tried = slack.callsTo('chat.update').filter((c) => planOf(c));
    expect(tried.map((c) => c.args.channel)).toEqual([thread.channelId, room.channel_id, thread.channelId]);
    expect(cardsOf(tried[2]).map((c) => c.status)).toEqual(['complete', 'complete', 'complete']);
  });

  it('where Slack refuses canvases, the room gets the plan block but no Plan tab, and says so in get_status', async () => {
    const { parentId } = await taskWithPlan('Plan the widget', true, () => slack.rooms.refuse('not_allowed', ['canvases.create']));
    const room = slack.rooms.bySession(parentId)!;
    expect(slack.callsTo('chat.postMessage').filter((c) => c.args.channel === room.channel_id && planOf(c))).toHaveLength(1);
    expect(room.views.has('plan')).toBe(false);
    expect(slack.callsTo('chat.postMessage').some((c) => String(c.args.text).startsWith('📝'))).toBe(false);
    expect(await exec('get_status')).toMatchObject({
      slack_features: { plan_blocks: { mode: 'native' }, plan_canvas: { mode: 'fallback', slack_error: 'not_allowed' } },
    });
    expect(appLog.take('Slack answered not_allowed to canvases.create')).toHaveLength(1);
  });

  it('where Slack refuses the plan block, posts the list instead, decided once, and still updates it in place', async () => {
    // A workspace that does not know the block answers the next message (the plan) with invalid_blocks.
    const refuse = () => slack.setResponse('chat.postMessage', { ok: false, error: 'invalid_blocks' }, { times: 1 });
    const first = await taskWithPlan('First plan', false, refuse);
    const thread = (await rt().db.taskThreads.get(first.parentId))!;
    const tries = slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).startsWith('🗺️'));
    expect(tries.map((c) => (planOf(c) ? 'block' : 'list'))).toEqual(['block', 'list']);
    const list = tries[1];
    const listed = JSON.stringify(list.args.blocks);
    expect(listed).toContain('Plan became 3 tasks');
    for (const id of first.steps) expect(listed).toContain(id);
    expect(listed).toContain('Add the <view> & styles');
    expect(await exec('get_status')).toMatchObject({
      slack_features: { plan_blocks: { mode: 'fallback', method: 'chat.postMessage', slack_error: 'invalid_blocks' } },
    });

    // Decided once: the next plan goes straight to the list.
    slack.clearCalls();
    await taskWithPlan('Second plan', false);
    expect(slack.callsTo('chat.postMessage').filter((c) => planOf(c))).toHaveLength(0);
    expect(slack.callsTo('chat.postMessage').filter((c) => String(c.args.text).startsWith('🗺️ Plan of Second plan'))).toHaveLength(1);

    slack.clearCalls();
    await exec('set_task_status', { task_id: first.steps[0], status: 'COMPLETED' });
    await settle();
    const update = slack.callsTo('chat.update').find((c) => String(c.args.text).includes('First plan'));
    const listInThread = slack.threadMessages(thread.channelId, thread.threadTs).filter((m) => String(m.text).startsWith('🗺️'));
    expect(listInThread).toHaveLength(1);
    expect(update?.args.ts).toBe(listInThread[0].ts);
    expect(update?.args.text).toBe('🗺️ Plan of First plan · 3 tasks: 1 of 3 done');
    expect(JSON.stringify(update?.args.blocks)).not.toContain('"plan"');
    expect(appLog.take('Slack answered invalid_blocks to chat.postMessage')).toHaveLength(1);
  });
});
