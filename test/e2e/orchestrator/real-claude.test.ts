import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { WebClient } from '@slack/web-api';
import { SlackNotifier } from '../../../src/slack/notifier';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { FakeSlack } from '../../support/fake-slack';
import { gitOut } from '../../support/git-fixtures';
import { useForgeRemote } from '../../support/fake-forges';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(90_000);

/**
 * The real Claude Code CLI (through the Agent SDK) in a real git workspace, against a loopback
 * Messages API that plays a script. No network, no token.
 */
describe('orchestrator with the real Claude Code CLI (e2e)', () => {
  let h: Harness;
  let fake: FakeAnthropic;
  const timings: Record<string, number> = {};

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    h = await makeHarness();
  });
  afterEach(async () => {
    await h.cleanup();
    await fake.close();
  });
  afterAll(() => {
    process.stdout.write(`real-CLI e2e timings (ms): ${JSON.stringify(timings)}\n`);
  });

  async function startWithClaude(ghPath?: string): Promise<void> {
    const home = path.join(h.rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    await h.start({
      adapters: { claude },
      git: new GitManagerTaskGit(new GitManager(ghPath ? { ghPath } : {})),
      progressIntervalMs: 50,
    });
  }

  it('READY → IN_PROGRESS → COMPLETED: the file is committed on the task branch, merged to origin, tokens recorded; Slack has a message for the task, then its progress and outcome in that thread', async () => {
    // One CLI run serves both: what the orchestrator records, and what the notifier posts of it.
    const slack = await FakeSlack.start();
    const notifier = new SlackNotifier(h.rt, new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }));
    const stop = notifier.start();
    try {
      await h.rt.exec('set_project_channel', { project_id: 'proj', channel_id: 'CPROJ' });
      const file = path.join(h.workspace, 'hello.txt');
      fake.enqueue(
        {
          toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello from the agent\n' } }],
          usage: { input_tokens: 200, output_tokens: 30, cache_read_input_tokens: 50, cache_creation_input_tokens: 20 },
        },
        {
          text: 'Created **hello.txt**.',
          usage: { input_tokens: 300, output_tokens: 12, cache_read_input_tokens: 60, cache_creation_input_tokens: 0 },
        },
      );
      const started = Date.now();
      await startWithClaude();
      const id = await h.task('Say hello');
      await h.waitStatus(id, 'IN_PROGRESS', 30_000);
      await h.waitStatus(id, 'COMPLETED', 60_000);
      timings.completed = Date.now() - started;

      const task = await h.rt.db.tasks.get(id);
      expect(task!.branchName).toBe(`${id}/say-hello`);
      expect(await gitOut(h.origin, 'show', 'main:hello.txt')).toBe('hello from the agent');
      expect(await gitOut(h.origin, 'log', '--format=%s', `main`, '-1', '--', 'hello.txt')).toBe('agent: Say hello');
      // The commit was made on the task branch (merged by fast-forward or merge commit).
      expect(
        await gitOut(
          h.workspace,
          'branch',
          '--contains',
          await gitOut(h.origin, 'rev-list', '-1', 'main', '--', 'hello.txt'),
          '--format=%(refname:short)',
        ),
      ).toContain(task!.branchName!);

      const [usage] = await h.rt.db.em().getConnection().execute('select * from token_usage where task_id = ?', [id]);
      expect(usage).toMatchObject({
        source: 'agent',
        input_tokens: 500,
        output_tokens: 42,
        cache_read_tokens: 110,
        cache_creation_tokens: 20,
        tokens: 672,
      });
      const result = await h.rt.db.taskResults.latest(id);
      expect(result).toMatchObject({ result: 'COMPLETED', summary: 'Created **hello.txt**.', tokensUsed: 672 });
      expect(result!.sessionId).toEqual(expect.any(String));

      expect(h.eventsOf('task_started', id)[0].payload).toMatchObject({
        title: 'Say hello',
        agent_id: 'agent-0',
        branch: task!.branchName,
        workspace_path: h.workspace,
      });
      const completed = await waitFor(async () => h.eventsOf('task_completed', id)[0]);
      expect(completed.payload).toMatchObject({
        title: 'Say hello',
        summary: 'Created **hello.txt**.',
        tokens: 672,
        branch: task!.branchName,
        merged: true,
      });
      expect(Number(completed.payload.cost_usd)).toBeGreaterThan(0);
      expect(
        h
          .eventsOf('task_progress', id)
          .map((e) => String(e.payload.text))
          .join('\n'),
      ).toContain('Write · hello.txt');
      // The CLI got our prompt, with the execution rules.
      expect(JSON.stringify(fake.requests[0].body.messages)).toContain('Do NOT push');

      await slack.waitFor(
        () => slack.callsTo('chat.postMessage').some((c) => String(c.args.text).startsWith('✅')),
        'the completion reply',
        15_000,
      );
      await notifier.idle();
      const posts = slack.callsTo('chat.postMessage');
      const root = posts[0];
      expect(root.args).toMatchObject({ channel: 'CPROJ', text: '🟡 Say hello — running' });
      const thread = await h.rt.db.taskThreads.get(id);
      expect(thread).toEqual({ channelId: 'CPROJ', threadTs: expect.any(String) });
      const completion = posts.find((c) => String(c.args.text).startsWith('✅'))!;
      expect(completion.args).toMatchObject({ channel: 'CPROJ', thread_ts: thread!.threadTs, text: '✅ Completed: Say hello' });
      expect(JSON.stringify(completion.args.blocks)).toContain('Created *hello.txt*.');
      // One root, progress before the outcome, and the root redrawn in place as completed.
      expect(posts.filter((c) => !c.args.thread_ts)).toHaveLength(1);
      const progress = posts.findIndex((c) => String(c.args.text).startsWith('💬'));
      expect(progress).toBeGreaterThan(0);
      expect(progress).toBeLessThan(posts.indexOf(completion));
      expect(slack.callsTo('chat.update').at(-1)!.args).toMatchObject({
        channel: 'CPROJ',
        ts: thread!.threadTs,
        text: '🟢 Say hello — completed',
      });
    } finally {
      stop();
      await slack.close();
    }
  });

  it('requires_approval: pushed branch, PR URL from gh, AWAITING_APPROVAL', async () => {
    const gh = path.join(h.rt.home, 'fake-gh');
    await writeFile(gh, '#!/bin/sh\nif [ "$1" = "pr" ]; then echo "https://github.com/acme/widget/pull/42"; fi\nexit 0\n');
    await chmod(gh, 0o755);
    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(h.workspace, 'feature.txt'), content: 'feature\n' } }] },
      { text: 'Feature ready for review.' },
    );
    const started = Date.now();
    await useForgeRemote(h.workspace, h.origin, 'https://github.com/acme/widget.git');
    await startWithClaude(gh);
    const id = await h.task('Reviewed feature', { requiresApproval: true });
    await h.waitStatus(id, 'AWAITING_APPROVAL', 60_000);
    timings.awaitingApproval = Date.now() - started;
    const task = await h.rt.db.tasks.get(id);
    expect(task!.prUrl).toBe('https://github.com/acme/widget/pull/42');
    expect(await gitOut(h.origin, 'show', `${task!.branchName}:feature.txt`)).toBe('feature');
    await expect(gitOut(h.origin, 'show', 'main:feature.txt')).rejects.toThrow();
    await waitFor(async () => h.eventsOf('pr_created', id)[0]);
    expect(h.eventsOf('task_awaiting_approval', id)[0].payload).toMatchObject({ title: 'Reviewed feature', pr_url: task!.prUrl });
  });

  it('stop_task aborts a live CLI run (the CLI exits) and the task is BLOCKED', async () => {
    fake.enqueue({ text: 'thinking for a long time', delayMs: 30_000 });
    await startWithClaude();
    const id = await h.task('Slow job');
    await waitFor(async () => fake.requests.length > 0, 30_000, 'the CLI to call the API');
    const stopAt = Date.now();
    expect(await h.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    timings.stop = Date.now() - stopAt;
    expect(timings.stop).toBeLessThan(10_000);
    expect(await h.status(id)).toBe('BLOCKED');
    expect((await h.rt.db.taskResults.latest(id))?.result).toBe('STOPPED');
    expect(h.rt.daemon()!.runningTaskIds).toEqual([]);
  });

  it('a 429 from the API pauses the task (PAUSED with resume_after) instead of failing it', async () => {
    fake.enqueue(
      { error: { status: 429, type: 'rate_limit_error', message: 'Rate limited', retryAfter: 0 } },
      { error: { status: 429, type: 'rate_limit_error', message: 'Rate limited', retryAfter: 0 } },
    );
    const started = Date.now();
    await startWithClaude();
    const id = await h.task('Limited');
    await h.waitStatus(id, 'PAUSED', 60_000);
    timings.rateLimited = Date.now() - started;
    const task = await h.rt.db.tasks.get(id);
    expect(task!.resumeAfter!.getTime()).toBeGreaterThan(Date.now());
    expect(task!.retryCount).toBe(0);
    const paused = await waitFor(async () => h.eventsOf('task_paused', id)[0]);
    expect(paused.payload).toMatchObject({ title: 'Limited', resume_after: task!.resumeAfter!.toISOString() });
  });
});
