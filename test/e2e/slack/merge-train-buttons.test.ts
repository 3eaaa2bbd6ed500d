import path from 'node:path';
import { renderResult } from '../../../src/slack/blocks/render';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { blockActions, eventCallback, interactionBody } from '../../support/slack-payloads';
import { homeBlockActions } from '../../support/slack-home-payloads';
import { putTask } from '../../support/task-fixtures';
import { validateMessage } from '../../support/slack-validator';

/**
 * The merge train card shows each queued task's place and state, and its Move up / Take out
 * buttons run the admin commands as the person who clicked: anyone else is refused and nothing moves.
 */
describe('the merge train card and its admin buttons', () => {
  let app: TestApp;
  const ids: string[] = [];
  beforeAll(async () => {
    app = await startTestApp({ AQ_ADMINS: 'UADMIN' });
    await exec('create_project', { name: 'alpha', auto_create_channels: false });
    for (const [i, title] of ['First <b>', 'Second', 'Third'].entries()) {
      const id = (await exec('create_task', { project_id: 'alpha', title, description: 'd' })).created as string;
      ids.push(id);
      await putTask(app.started.runtime.db, id, 'AWAITING_APPROVAL');
      await app.started.runtime.db.mergeTrain.enter({ taskId: id, projectId: 'alpha', train: 'project:alpha' }, Date.now() + i);
    }
    await app.started.runtime.db.mergeTrain.advance(ids[0], ['waiting'], 'checking', Date.now());
  }, 120_000);
  afterAll(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args, { source: 'system' });
  const card = async () => renderResult('get_merge_queue', {}, await exec('get_merge_queue', { project_id: 'alpha' }));
  const order = async () =>
    ((await exec('get_merge_queue', { project_id: 'alpha' })).entries as Array<{ task_id: string }>).map((e) => e.task_id);
  const click = async (actionId: string, value: string, userId: string, responseId: string) => {
    const body = blockActions({ actionId, value, userId, channelId: 'CALPHA', responseUrl: app.slack.responseUrl(responseId) });
    expect(
      (await FakeSlack.postToApp(app.url, `payload=${encodeURIComponent(JSON.stringify(body))}`, { signingSecret: app.signingSecret }))
        .status,
    ).toBe(200);
    return (await app.slack.waitForResponse((r) => r.id === responseId, 30_000)).body as { text: string };
  };
  const buttons = (blocks: unknown[]) =>
    blocks
      .flatMap((b) => (b as { elements?: Array<{ action_id?: string; value?: string; text?: { text: string } }> }).elements ?? [])
      .filter((e) => e.action_id)
      .map((e) => [e.text?.text, e.action_id, e.value]);

  it('shows place and state, with buttons only for entries not landing now', async () => {
    const rendered = await card();
    expect(validateMessage({ text: rendered.text, blocks: rendered.blocks })).toEqual([]);
    const shown = JSON.stringify(rendered.blocks);
    expect(shown).toContain('#1 First <b>');
    expect(shown).toContain('checking');
    expect(shown).toContain('#3 Third');
    expect(shown).toContain('waiting');
    expect(buttons(rendered.blocks)).toEqual([
      ['Move #2 up', 'aq_merge_train_move_up', `${ids[1]} 1`],
      ['Take #2 out', 'aq_merge_train_take_out', ids[1]],
      // Ids are unique within the actions block; the listeners match either form.
      ['Move #3 up', 'aq_merge_train_move_up~2', `${ids[2]} 2`],
      ['Take #3 out', 'aq_merge_train_take_out~2', ids[2]],
    ]);
  });

  it('moves a task up and takes one out for an admin, and refuses anyone else', async () => {
    expect((await click('aq_merge_train_move_up', `${ids[2]} 2`, 'UOTHER', 'm1')).text).toMatch(/^:warning: .*AQ_ADMINS/);
    expect((await click('aq_merge_train_take_out', ids[1], 'UOTHER', 't1')).text).toMatch(/^:warning: .*AQ_ADMINS/);
    expect(await order()).toEqual(ids);

    expect((await click('aq_merge_train_move_up~2', `${ids[2]} 2`, 'UADMIN', 'm2')).text).toBe(
      `:arrow_up: Moved \`${ids[2]}\` to place 2 of its merge train.`,
    );
    expect(await order()).toEqual([ids[0], ids[2], ids[1]]);
    expect((await click('aq_merge_train_take_out', ids[1], 'UADMIN', 't2')).text).toContain(`Took \`${ids[1]}\` out of its merge train`);
    expect(await order()).toEqual([ids[0], ids[2]]);
    // A landing under way is not pulled out, and the answer says why in a sentence.
    expect((await click('aq_merge_train_take_out', ids[0], 'UADMIN', 't3')).text).toBe(
      `:warning: Task '${ids[0]}' is landing right now (checking); try again when the landing is over.`,
    );
  });

  it('shows the train on the Home, where an admin steers it too', async () => {
    type View = { blocks: unknown[] };
    const post = (body: string) => FakeSlack.postToApp(app.url, body, { signingSecret: app.signingSecret });
    const homeWith = async (after: number, note: string): Promise<View> => {
      const later = () =>
        app.slack
          .callsTo('views.publish')
          .slice(after)
          .map((c) => c.args.view as View);
      await app.slack.waitFor(() => later().some((v) => JSON.stringify(v.blocks).includes(note)), `a Home showing ${note}`);
      return later().find((v) => JSON.stringify(v.blocks).includes(note))!;
    };
    let n = app.slack.callsTo('views.publish').length;
    const opened = eventCallback({ type: 'app_home_opened', user: 'UADMIN', channel: 'D1', tab: 'home', event_ts: '1700000000.1' });
    await FakeSlack.postToApp(app.url, opened, { signingSecret: app.signingSecret, contentType: 'json' });
    const home = await homeWith(n, 'Merge train');
    expect(JSON.stringify(home.blocks)).toContain('2 waiting to land');
    expect(JSON.stringify(home.blocks)).toContain('#1 First <b>');
    expect(JSON.stringify(home.blocks)).toContain('aq_merge_train_take_out');

    n = app.slack.callsTo('views.publish').length;
    await post(interactionBody(homeBlockActions({ actionId: 'aq_merge_train_move_up', value: `${ids[2]} 1`, userId: 'UOTHER' })));
    await homeWith(n, 'AQ_ADMINS');
    expect(await order()).toEqual([ids[0], ids[2]]);
    n = app.slack.callsTo('views.publish').length;
    await post(interactionBody(homeBlockActions({ actionId: 'aq_merge_train_move_up', value: `${ids[2]} 1`, userId: 'UADMIN' })));
    await homeWith(n, 'to place 1 of its merge train');
    expect(await order()).toEqual([ids[2], ids[0]]);
  });

  it('the Approve button queues a task with work to land and says its place', async () => {
    const db = app.started.runtime.db;
    const home = app.started.runtime.config.home;
    await exec('create_project', { name: 'beta', auto_create_channels: false });
    const workspace = await cloneWorkspace(await createOriginRepo(home), path.join(home, 'ws-beta'));
    await gitOut(workspace, 'checkout', '-q', '-b', 'aq/review');
    await commitFile(workspace, 'feature.txt', 'f\n');
    await db.workspaces.create({ id: 'ws-beta', projectId: 'beta', name: 'ws-beta', path: workspace, sourceType: 'clone', repoId: null });
    const id = (await exec('create_task', { project_id: 'beta', title: 'Review <me>', description: 'd' })).created as string;
    await putTask(db, id, 'AWAITING_APPROVAL', { workspaceId: 'ws-beta', branchName: 'aq/review' });
    // Another process is landing in this train: the approval waits behind it.
    expect(await db.mergeTrain.acquireLock('project:beta', 'another process', 600_000, Date.now())).toBe(true);
    const answer = await click('aq_approve_task', id, 'UADMIN', 'a1');
    const shown = JSON.stringify(answer);
    expect(shown).toContain('Approved by <@UADMIN>. Queued for landing: #1 in the merge train.');
    expect(shown).toContain('🚂 #1 in the merge train');
    expect(validateMessage(answer as never)).toEqual([]);
    expect((await exec('get_task', { task_id: id })).merge_queue).toMatchObject({ place: 1, state: 'waiting' });
  });
});
