import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTasksFromPlan } from '../../../src/orchestrator/auto-task';
import { FakeSlack } from '../../support/fake-slack';
import { blockActions, interactionBody, slashCommand } from '../../support/slack-payloads';
import { startTestApp, type TestApp } from '../../support/slack-app';

const PLAN = `# Ship the widget

## Step 1: Add the model

Create src/model.ts with the Widget type and its fields.

## Step 2: Add the view

Render the widget in src/view.ts using the model from step 1.

## Step 3: Wire it up

Export both from src/index.ts and add a smoke test.
`;

type Button = { action_id: string; value: string };

/**
 * A plan's canvas in its task's room, through the real app, notifier and Bolt listeners against
 * the fake Slack: the app writes the plan there and records its hash; a person's edits are read
 * back, parsed, shown as changes, and applied to the child tasks only when they confirm.
 */
describe('the plan canvas', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let parentId: string;
  let steps: string[];
  let room: string;
  let canvasId: string;

  beforeEach(async () => {
    app = await startTestApp();
    slack = app.slack;
    await exec('create_project', { name: 'p', auto_create_channels: false });
    await exec('set_project_channel', { project_id: 'p', channel_id: 'CP' });
    parentId = (await exec('create_task', { project_id: 'p', title: 'Plan the widget', description: 'd', requires_approval: true }))
      .created as string;
    await exec('set_task_status', { task_id: parentId, status: 'IN_PROGRESS' });
    await rt().events.emit('task_started', { projectId: 'p', taskId: parentId, payload: { title: 'Plan the widget' } });
    await settle();
    const workspace = path.join(app.home, 'ws');
    await mkdir(path.join(workspace, '.agent'), { recursive: true });
    await writeFile(path.join(workspace, '.agent', 'plan.md'), PLAN);
    const outcome = await createTasksFromPlan(
      { db: rt().db, events: rt().events, config: rt().config, commitAll: async () => undefined, log: () => undefined },
      (await rt().db.tasks.get(parentId))!,
      workspace,
      new Date(Date.now() - 60_000),
    );
    if (outcome.kind !== 'created') throw new Error(`the plan was not turned into tasks: ${JSON.stringify(outcome)}`);
    steps = outcome.tasks.map((t) => t.id);
    await settle();
    room = slack.rooms.bySession(parentId)!.channel_id;
    canvasId = String(slack.rooms.rooms.get(room)?.views.get('plan')?.canvas_id);
  });
  afterEach(() => app.stop());

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const settle = () => app.started.notifier.idle();
  const titles = async () => ((await exec('get_plan', { task_id: parentId })).steps as Array<{ title: string }>).map((s) => s.title);
  const buttonsOf = (blocks: unknown): Button[] =>
    ((blocks ?? []) as Array<{ type: string; elements?: Button[] }>).filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);

  /** Clicks a button in the room as U7 and resolves with the answer only they see. */
  async function click(button: Button, options: { ephemeral?: boolean } = {}): Promise<{ text: string; blocks: unknown }> {
    const id = `r${slack.responses.length + 1}`;
    const ack = await FakeSlack.postToApp(
      app.url,
      interactionBody(
        blockActions({
          actionId: button.action_id,
          value: button.value,
          channelId: room,
          userId: 'U7',
          responseUrl: slack.responseUrl(id),
        }),
      ),
      { signingSecret: app.signingSecret },
    );
    expect(ack.status).toBe(200);
    await slack.waitFor(() => slack.responses.some((r) => r.id === id), `the answer to ${button.action_id}`);
    const body = slack.responses.find((r) => r.id === id)!.body;
    // A task button that ran its command redraws the clicked message instead.
    if (options.ephemeral !== false) expect(body.response_type).toBe('ephemeral');
    return { text: String(body.text), blocks: body.blocks };
  }

  function applyCanvasEdits(): Button {
    const invite = slack.callsTo('chat.postMessage').find((c) => c.args.channel === room && String(c.args.text).startsWith('📝'));
    const button = buttonsOf(invite?.args.blocks).find((b) => b.action_id === 'aq_plan_canvas_check');
    if (!button) throw new Error('no Apply canvas edits button in the room');
    return button;
  }

  it('writes the plan in a canvas tab of the room, with the hash of what it wrote, and reads it back as the same steps', async () => {
    const view = slack.rooms.rooms.get(room)?.views.get('plan');
    expect(view).toMatchObject({ type: 'canvas', label: 'Plan', canvas_id: canvasId });
    const content = slack.rooms.canvases.get(canvasId)!.content;
    expect(content).toContain('## Step 1: Add the model');
    expect(content).toContain('## Step 3: Wire it up');
    expect(view?.agent_content_hash).toMatch(/^[0-9a-f]{32}$/);
    // The app's own text reads back through revise_plan as exactly the plan: nothing to change.
    expect(await exec('revise_plan', { task_id: parentId, plan: content })).toMatchObject({ added: [], removed: [], changed: [] });

    // An unchanged canvas changes nothing.
    const answer = await click(applyCanvasEdits());
    expect(answer.text).toBe('The plan canvas has no edits to apply: it shows the plan as it is.');
    expect(buttonsOf(answer.blocks)).toEqual([]);
    expect(await titles()).toEqual(['Add the model', 'Add the view', 'Wire it up']);

    // A plan revised from aq (or the model) shows in the canvas too, as the app's text.
    const revised = content.replace('## Step 3: Wire it up', '## Step 3: Wire it all up & ship <it>');
    expect(await exec('revise_plan', { task_id: parentId, plan: revised, confirm: true })).toMatchObject({ applied: true });
    await settle();
    expect(slack.rooms.canvases.get(canvasId)!.content).toContain('## Step 3: Wire it all up & ship <it>');
    expect((await click(applyCanvasEdits())).text).toBe('The plan canvas has no edits to apply: it shows the plan as it is.');
    // Nor does the same text read back in Slack's own form (entities, bullets, line ends, blank lines).
    slack.rooms.normalizeCanvas(canvasId);
    expect(slack.rooms.canvases.get(canvasId)!.content).toContain('Wire it all up &amp; ship &lt;it&gt;');
    expect((await click(applyCanvasEdits())).text).toBe('The plan canvas has no edits to apply: it shows the plan as it is.');
    expect(await titles()).toEqual(['Add the model', 'Add the view', 'Wire it all up & ship <it>']);
  });

  it("shows a person's edits as changes and applies them to the child tasks only when they confirm", async () => {
    const before = slack.rooms.canvases.get(canvasId)!.content;
    const check = applyCanvasEdits();
    slack.rooms.editCanvas(
      canvasId,
      `${before.replace('## Step 2: Add the view', '## Step 2: Add the view & its <styles>')}\n## Step 4: Document it\n\nWrite docs/widget.md with an example of the widget.\n`,
    );
    const shown = await click(check);
    const text = JSON.stringify(shown.blocks);
    expect(text).toContain('The canvas changes the plan (2 changes)');
    expect(text).toContain('Add the view & its <styles>');
    expect(text).toContain('New step 4: ');
    expect(text).toContain('Document it');
    // Shown, not applied.
    expect(await titles()).toEqual(['Add the model', 'Add the view', 'Wire it up']);

    // The room's /plan reads the canvas the same way.
    const ack = await FakeSlack.postToApp(
      app.url,
      slashCommand({ command: '/plan', text: '', userId: 'U7', channelId: room, responseUrl: slack.responseUrl('slash-plan') }),
      { signingSecret: app.signingSecret },
    );
    expect(ack.status).toBe(200);
    await slack.waitFor(() => slack.responses.some((r) => r.id === 'slash-plan'), 'the answer to /plan');
    const viaCommand = slack.responses.find((r) => r.id === 'slash-plan')!.body;
    expect(viaCommand.response_type).toBe('ephemeral');
    expect(JSON.stringify(viaCommand.blocks)).toContain('The canvas changes the plan (2 changes)');

    const [apply, discard] = buttonsOf(shown.blocks);
    expect([apply.action_id, discard.action_id]).toEqual(['aq_plan_canvas_apply', 'aq_plan_canvas_discard']);
    slack.clearCalls();
    const applied = await click(apply);
    expect(applied.text).toBe("✅ Applied the canvas's 2 changes to the plan.");
    expect(await titles()).toEqual(['Add the model', 'Add the view & its <styles>', 'Wire it up', 'Document it']);
    const plan = (await exec('get_plan', { task_id: parentId })).steps as Array<{ id: string }>;
    expect(plan.slice(0, 3).map((s) => s.id)).toEqual(steps);
    // The canvas shows the plan as applied (the app's text again), and the plan block ticks with the new step.
    expect(slack.rooms.canvases.get(canvasId)!.content).toContain('## Step 4: Document it');
    // Rewritten with the plan as applied (the listener and the notifier may both write it: the same text).
    const writes = slack.callsTo('agents.conversations.setCanvasContent').map((c) => c.args.content);
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(writes)).toEqual(new Set([slack.rooms.canvases.get(canvasId)!.content]));
    await settle();
    const update = slack.callsTo('chat.update').find((c) => JSON.stringify(c.args.blocks ?? []).includes('"plan"'));
    expect(JSON.stringify(update?.args.blocks)).toContain('Document it');
    expect((await click(check)).text).toBe('The plan canvas has no edits to apply: it shows the plan as it is.');
  });

  it('says why a canvas the parser cannot read was not applied, and changes nothing; Discard puts the plan back', async () => {
    const before = slack.rooms.canvases.get(canvasId)!.content;
    slack.rooms.editCanvas(canvasId, 'Just build the whole widget somehow, in one go.');
    const answer = await click(applyCanvasEdits());
    expect(answer.text).toMatch(
      /^⚠️ The canvas's plan was not applied, and nothing changed: The revised plan reads as one document rather than separate steps/,
    );
    expect(await titles()).toEqual(['Add the model', 'Add the view', 'Wire it up']);

    slack.rooms.editCanvas(canvasId, `${before}\n## Step 4: Extra\n\nSomething more to do in the widget.\n`);
    const shown = await click(applyCanvasEdits());
    const discard = buttonsOf(shown.blocks).find((b) => b.action_id === 'aq_plan_canvas_discard')!;
    expect((await click(discard)).text).toBe('The plan canvas shows the plan again; your edits there were dropped.');
    expect(slack.rooms.canvases.get(canvasId)!.content).toBe(before);
    expect(await titles()).toEqual(['Add the model', 'Add the view', 'Wire it up']);
  });

  it('holds the approval of the task that made the plan while its canvas has edits not applied', async () => {
    await exec('set_task_status', { task_id: parentId, status: 'AWAITING_APPROVAL' });
    const before = slack.rooms.canvases.get(canvasId)!.content;
    slack.rooms.editCanvas(canvasId, `${before}\n## Step 4: Extra\n\nSomething more to do in the widget.\n`);
    const approve = { action_id: 'aq_approve_task', value: parentId };
    const held = await click(approve);
    expect(held.text).toBe(
      '✋ Not approved yet: the plan canvas has edits that are not applied. Apply or discard them, then approve again.',
    );
    expect(JSON.stringify(held.blocks)).toContain('New step 4: ');
    const ack = await FakeSlack.postToApp(
      app.url,
      slashCommand({ command: '/approve', text: '', userId: 'U7', channelId: room, responseUrl: slack.responseUrl('slash-approve') }),
      { signingSecret: app.signingSecret },
    );
    expect(ack.status).toBe(200);
    await slack.waitFor(() => slack.responses.some((r) => r.id === 'slash-approve'), 'the answer to /approve');
    expect(String(slack.responses.find((r) => r.id === 'slash-approve')!.body.text)).toMatch(/^✋ Not approved yet/);
    expect((await exec('get_task', { task_id: parentId })).status).toBe('AWAITING_APPROVAL');

    // Discarded, the approval goes through.
    await click(buttonsOf(held.blocks).find((b) => b.action_id === 'aq_plan_canvas_discard')!);
    const approved = await click(approve, { ephemeral: false });
    expect(approved.text).not.toMatch(/^✋/);
    expect((await exec('get_task', { task_id: parentId })).status).not.toBe('AWAITING_APPROVAL');
  });
});
