import { WebClient } from '@slack/web-api';
import { FakeSlack } from '../../support/fake-slack';
import { ROOM_METHODS, type RoomRefusal } from '../../support/fake-slack-rooms';

/** The fake's agents.conversations.* with the real WebClient: rooms kept as Slack keeps them, limits checked, refusals. */
describe('FakeSlack task rooms (agents.conversations.*)', () => {
  let slack: FakeSlack;
  let client: WebClient;

  beforeEach(async () => {
    slack = await FakeSlack.start();
    client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterEach(() => slack.close());

  it('creates one room per session id, keeps its context bar, views, commands and canvas, and archives it', async () => {
    const first = await client.agents.conversations.create({
      name: 'task-a',
      session_id: 'task-a',
      origin_channel_id: 'C1',
      origin_message_ts: '1.1',
    });
    const again = await client.agents.conversations.create({
      name: 'task-a',
      session_id: 'task-a',
      origin_channel_id: 'C1',
      origin_message_ts: '1.1',
    });
    const other = await client.agents.conversations.create({ name: 'task-b', session_id: 'task-b' });
    expect(again.channel_id).toBe(first.channel_id);
    expect(other.channel_id).not.toBe(first.channel_id);
    const channel_id = String(first.channel_id);
    expect(slack.rooms.bySession('task-a')).toMatchObject({ channel_id, origin: { channel_id: 'C1', message_ts: '1.1' } });

    await client.agents.conversations.setProperties({
      channel_id,
      code_channel: {
        context_bar_items: [
          { key: 'branch', label: 'demo · task-a', icon: 'branch' },
          { key: 'approve', label: 'Approve', item_type: 'action' },
        ],
      },
    });
    expect(slack.rooms.rooms.get(channel_id)?.context_bar.map((i) => i.key)).toEqual(['branch', 'approve']);

    const diff = await client.agents.conversations.setView({
      channel_id,
      type: 'diff',
      content: 'diff --git a/x b/x\n',
      base_branch: 'main',
    });
    const diff2 = await client.agents.conversations.setView({ channel_id, type: 'diff', content: 'diff --git a/y b/y\n' });
    expect(diff2).toMatchObject({ view_id: diff.view_id, content_version: 2 });
    await client.agents.conversations.setView({ channel_id, type: 'pull_request', pr_url: 'https://github.com/o/r/pull/1' });
    const listed = await client.agents.conversations.listViews({ channel_id });
    expect(listed.views?.map((v) => v.view_key)).toEqual(['diff', 'pull_request']);
    await client.agents.conversations.removeView({ channel_id, view_key: 'pull_request' });
    expect((await client.agents.conversations.listViews({ channel_id })).views).toHaveLength(1);

    const commands = await client.agents.conversations.setCommands({ channel_id, commands: [{ name: 'approve' }, { name: 'stop' }] });
    expect(commands.command_count).toBe(2);

    const canvas = await client.canvases.create({ title: 'Plan', document_content: { type: 'markdown', markdown: '# Plan\n' } });
    const canvas_id = String(canvas.canvas_id);
    await client.agents.conversations.setView({ channel_id, type: 'canvas', view_key: 'plan', canvas_id, access_level: 'write' });
    await client.agents.conversations.setCanvasContent({ channel: channel_id, canvas_id, content: '# Plan\n- one\n' });
    slack.rooms.editCanvas(canvas_id, '# Plan\n- one\n- two\n');
    expect((await client.agents.conversations.getCanvas({ channel: channel_id, canvas_id })).content).toBe('# Plan\n- one\n- two\n');

    await client.agents.conversations.archive({ channel_id, summary_message_ts: '2.2' });
    expect(slack.rooms.rooms.get(channel_id)).toMatchObject({ archived: true, summary_message_ts: '2.2' });
    await expect(client.agents.conversations.setView({ channel_id, type: 'diff', content: 'x' })).rejects.toMatchObject({
      data: { error: 'is_archived' },
    });
    expect(slack.callsTo('agents.conversations.archive')).toHaveLength(1);
  });

  it('answers payloads over Slack limits with Slack errors and records them as violations', async () => {
    const { channel_id } = await client.agents.conversations.create({ name: 'limits', session_id: 's' });
    const six = Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, label: `item ${i}` }));
    await expect(
      client.agents.conversations.setProperties({ channel_id: String(channel_id), code_channel: { context_bar_items: six } }),
    ).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `c${i}` }));
    await expect(client.agents.conversations.setCommands({ channel_id: String(channel_id), commands: eleven })).rejects.toMatchObject({
      data: { error: 'too_many_commands' },
    });
    const big = 'x'.repeat(1_000_001);
    await expect(client.agents.conversations.setView({ channel_id: String(channel_id), type: 'diff', content: big })).rejects.toMatchObject(
      {
        data: { error: 'content_too_large' },
      },
    );
    const blocks = Array.from({ length: 101 }, () => ({ type: 'divider' as const }));
    await expect(
      client.agents.conversations.setView({ channel_id: String(channel_id), type: 'block_kit', view_key: 'k', blocks }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_arguments' },
    });
    const seen = slack.takeViolations().map((v) => `${v.where} ${v.path}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        'agents.conversations.setProperties code_channel.context_bar_items',
        'agents.conversations.setCommands commands',
        'agents.conversations.setView content',
        'agents.conversations.setView blocks',
      ]),
    );
  });

  it.each<RoomRefusal>(['not_allowed', 'unknown_method', 'missing_scope', 'feature_not_enabled'])(
    'refuses every method with %s',
    async (error) => {
      slack.rooms.refuse(error);
      for (const method of ROOM_METHODS) {
        await expect(client.apiCall(method, { channel_id: 'CR0001', name: 'x' })).rejects.toMatchObject({ data: { ok: false, error } });
      }
      expect(slack.calls.filter((c) => c.method.startsWith('agents.conversations.'))).toHaveLength(ROOM_METHODS.length);
      // The refused calls carried no valid payload; what a refusal answers is what is tested here.
      slack.takeViolations();
      slack.rooms.allow();
      await expect(client.agents.conversations.create({ name: 'back' })).resolves.toMatchObject({ ok: true });
    },
  );
});
