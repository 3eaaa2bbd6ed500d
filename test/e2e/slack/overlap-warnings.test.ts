import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { View } from '@slack/types';
import { WebClient } from '@slack/web-api';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeSlack } from '../../support/fake-slack';
import { cloneWorkspace, createOriginRepo } from '../../support/git-fixtures';
import { HOSTILE, showsSomewhere } from '../../support/hostile';
import { eventCallback } from '../../support/slack-payloads';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { ScriptedAdapter, untilAborted, waitFor, writeIn } from '../../integration/orchestrator/harness';

jest.setTimeout(180_000);

function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

/** A file name that would ping the channel if it reached mrkdwn unescaped. */
const HOSTILE_FILE = 'docs/<!channel> & <b>.md';

/**
 * Two tasks of one repository editing the same files, run by the real daemon in real git
 * workspaces, reported by the real app to the fake Slack: one warning in each task thread, edited
 * (never repeated) when the shared files change, edited again when the overlap ends; the Home lists
 * the overlap under "Needs you" while it lasts.
 */
describe('conflict radar warnings in task threads and on the Home (real app, fake Slack)', () => {
  let app: TestApp;
  let slack: FakeSlack;

  afterEach(async () => {
    await app?.stop();
  });

  it('warns once per thread, updates the same messages, withdraws them when the overlap ends', async () => {
    app = await startTestApp({ AQ_AGENTS: '0' }, { daemon: false });
    slack = app.slack;
    const rt = app.started.runtime;
    const exec = (name: string, args: Record<string, unknown> = {}) => rt.handler.executeAny(name, args, { source: 'system' });
    const origin = await createOriginRepo(app.home);
    await rt.db.projects.create({ id: 'proj', name: 'proj', workspace: path.join(app.home, 'project-dir'), maxConcurrentAgents: 2 });
    for (const i of [0, 1]) {
      const dir = await cloneWorkspace(origin, path.join(app.home, `ws${i}`));
      await rt.db.workspaces.create({ id: `ws${i}`, projectId: 'proj', name: `ws${i}`, path: dir, sourceType: 'clone', repoId: null });
      await rt.db.agents.create({ id: `agent-${i}`, name: `Agent ${i}`, type: 'claude' });
    }
    await exec('set_project_channel', { project_id: 'proj', channel_id: 'CP' });

    const widen = gate();
    const drop = gate();
    const finish = gate();
    const adapter = new ScriptedAdapter();
    adapter.fallback = async (req) => {
      const isFirst = (await rt.db.tasks.get(req.taskId))?.title === 'Edit the parser';
      await writeIn(req, 'src/shared.ts', `${req.taskId}\n`);
      await writeIn(req, HOSTILE_FILE, `${req.taskId}\n`);
      if (!isFirst) await writeIn(req, 'src/more.ts', 'b\n');
      req.onProgress?.('edited');
      if (isFirst) {
        await Promise.race([widen.opened, untilAborted(req)]);
        await writeIn(req, 'src/more.ts', 'a\n');
        req.onProgress?.('edited more');
        await Promise.race([drop.opened, untilAborted(req)]);
        for (const f of ['src/shared.ts', HOSTILE_FILE, 'src/more.ts']) await rm(path.join(req.cwd, f));
        req.onProgress?.('put everything back');
      }
      await Promise.race([finish.opened, untilAborted(req)]);
      return { status: req.signal.aborted ? 'aborted' : 'completed' };
    };
    await rt.startDaemon({
      adapters: { claude: adapter },
      git: new GitManagerTaskGit(new GitManager()),
      intervalMs: 500,
      progressIntervalMs: 50,
    });
    const first = (await rt.db.tasks.create({ projectId: 'proj', title: 'Edit the parser', description: 'Do it' })).id;
    const second = (await rt.db.tasks.create({ projectId: 'proj', title: HOSTILE, description: 'Do it too' })).id;
    rt.daemon()?.kick();

    const warnings = () =>
      slack.callsTo('chat.postMessage').filter((c) => !!c.args.thread_ts && String(c.args.text).startsWith('⚠️ Possible conflict'));
    await waitFor(async () => warnings().length === 2, 90_000, 'a warning in each thread');
    const threads = await Promise.all([first, second].map((id) => rt.db.taskThreads.get(id)));
    const byThread = (ts: string | undefined) => warnings().find((c) => c.args.thread_ts === ts)!;
    const inFirst = byThread(threads[0]?.threadTs);
    const inSecond = byThread(threads[1]?.threadTs);
    expect(inFirst.args.channel).toBe('CP');
    expect(showsSomewhere(inFirst.args.blocks, HOSTILE)).toBe(true);
    expect(showsSomewhere(inFirst.args.blocks, HOSTILE_FILE)).toBe(true);
    expect(JSON.stringify(inFirst.args.blocks)).not.toContain('<!channel>');
    expect(showsSomewhere(inSecond.args.blocks, 'Edit the parser')).toBe(true);
    expect(showsSomewhere(inSecond.args.blocks, 'Agent 0')).toBe(true);
    expect(showsSomewhere(inSecond.args.blocks, 'Agent 1')).toBe(true);

    // The Home lists it under "Needs you".
    const publishes = slack.callsTo('views.publish').length;
    await FakeSlack.postToApp(
      app.url,
      eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home', event_ts: '1700000000.1' }),
      { signingSecret: app.signingSecret, contentType: 'json' },
    );
    await slack.waitForCall('views.publish', () => slack.callsTo('views.publish').length > publishes);
    const home = slack.callsTo('views.publish').at(-1)!.args.view as View;
    expect(showsSomewhere(home.blocks, '1 overlap')).toBe(true);
    expect(showsSomewhere(home.blocks, 'both touch')).toBe(true);
    expect(showsSomewhere(home.blocks, 'Edit the parser')).toBe(true);

    const overlapped = (await exec('get_overlaps', { project_id: 'proj' })) as { overlaps: Array<{ files: string[] }>; total: number };
    expect(overlapped.total).toBe(1);
    expect(overlapped.overlaps[0].files).toEqual([HOSTILE_FILE, 'src/shared.ts']);

    // The radar's messages in a thread as Slack keeps them now (edits applied).
    const reader = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const radarMessages = async (threadTs: string | undefined) => {
      const replies = await reader.conversations.replies({ channel: 'CP', ts: String(threadTs) });
      return (replies.messages ?? []).filter((m) => /^(⚠️|✅) Possible conflict/.test(String(m.text)));
    };
    const updates = () => slack.callsTo('chat.update').filter((u) => /^(⚠️|✅) Possible conflict/.test(String(u.args.text)));

    // A wider overlap edits both messages; nothing new is posted.
    widen.open();
    await waitFor(async () => updates().length === 2, 90_000, 'the warnings to be updated');
    for (const t of threads) {
      const [only, ...others] = await radarMessages(t?.threadTs);
      expect(others).toEqual([]);
      expect(showsSomewhere(only.blocks, 'src/more.ts')).toBe(true);
    }
    expect(warnings()).toHaveLength(2);

    drop.open();
    await waitFor(async () => updates().length === 4, 90_000, 'the warnings to be cleared');
    for (const t of threads) {
      const [only, ...others] = await radarMessages(t?.threadTs);
      expect(others).toEqual([]);
      expect(String(only.text)).toMatch(/^✅ Possible conflict with task \S+ cleared/);
    }
    expect(warnings()).toHaveLength(2);
    expect(await exec('get_overlaps', {})).toMatchObject({ overlaps: [], total: 0 });
    finish.open();
    await waitFor(async () => (await rt.db.tasks.get(second))?.status === 'COMPLETED', 90_000, 'the second task to finish');
  });
});
