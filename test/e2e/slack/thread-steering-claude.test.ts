import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import type { EventRecord } from '../../../src/db/repositories/events';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic, type RecordedRequest } from '../../support/fake-anthropic';
import { cloneWorkspace, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { FakeSlack } from '../../support/fake-slack';
import { eventCallback } from '../../support/slack-payloads';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { waitFor } from '../../integration/orchestrator/harness';
import { succeeded } from '../../support/outcome';

jest.setTimeout(120_000);

const conversation = (r: RecordedRequest): string => JSON.stringify(r.body.messages ?? []);

/**
 * A reply in a task's Slack thread, through the real Bolt app, the daemon and the real Claude
 * Code CLI against the loopback Messages API: a running session gets it in its next request, and
 * a reply after the task finished resumes the same session as a follow-up in the same thread.
 */
describe('a task thread is a conversation with the real Claude Code CLI (e2e)', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let fake: FakeAnthropic;
  let workspace: string;
  let origin: string;
  const events: EventRecord[] = [];

  beforeEach(async () => {
    events.length = 0;
    fake = await FakeAnthropic.start();
    app = await startTestApp({ AQ_AGENTS: '0' }, { daemon: false });
    slack = app.slack;
    slack.setResponse('users.info', (args) => ({
      ok: true,
      user: { id: args.user, name: 'sam', profile: { display_name: 'Sam Steerer' } },
    }));
    const rt = app.started.runtime;
    rt.events.subscribe((e) => {
      events.push(e);
    });
    origin = await createOriginRepo(app.home);
    await rt.db.projects.create({ id: 'web', name: 'web', workspace: path.join(app.home, 'project-dir'), maxConcurrentAgents: 2 });
    workspace = await cloneWorkspace(origin, path.join(app.home, 'ws0'));
    await rt.db.workspaces.create({ id: 'ws0', projectId: 'web', name: 'ws0', path: workspace, sourceType: 'clone', repoId: null });
    await rt.db.agents.create({ id: 'agent-0', name: 'Agent 0', type: 'claude' });
    await rt.handler.execute('set_project_channel', { project_id: 'web', channel_id: 'CWEB' });
    const home = path.join(app.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      messagePollMs: 50,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    await rt.startDaemon({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager()), intervalMs: 500, progressIntervalMs: 50 });
  });
  afterEach(async () => {
    await app.stop();
    await fake.close();
  });

  const rt = () => app.started.runtime;
  const eventsOf = (type: string, taskId: string) => events.filter((e) => e.type === type && e.taskId === taskId);
  const modelRequests = () => fake.requests.filter((r) => Array.isArray(r.body.messages));
  const createTask = async (title: string) =>
    succeeded(await rt().handler.execute('create_task', { project_id: 'web', title, description: `Do: ${title}` })).created;
  const threadOf = (taskId: string) => waitFor(() => rt().db.taskThreads.get(taskId), 60_000, 'the task thread');
  /** A person replies in the task's thread: Slack keeps the message and delivers its event. */
  async function replyInThread(threadTs: string, text: string): Promise<string> {
    const reply = slack.userSays({ channel: 'CWEB', user: 'U7', threadTs, text });
    const posted = await FakeSlack.postToApp(app.url, JSON.stringify(eventCallback(reply)), {
      signingSecret: app.signingSecret,
      contentType: 'json',
    });
    expect(posted.status).toBe(200);
    return reply.ts;
  }
  const inThread = (threadTs: string) => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === threadTs);

  it('a reply while the task runs reaches the live session in its next request, and the thread says so', async () => {
    let taskId = '';
    // The first answer is held until the run has taken the reply, so it lands mid-turn.
    fake.enqueue(
      async () => {
        await waitFor(async () => eventsOf('task_message_delivered', taskId)[0], 60_000, 'the reply to be delivered');
        return { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'a.txt'), content: 'a\n' } }] };
      },
      { text: 'Wrote a.txt, with tabs as asked.' },
    );
    taskId = await createTask('Write a');
    const thread = await threadOf(taskId);
    await waitFor(async () => modelRequests().length > 0, 60_000, 'the CLI to call the API');

    const ts = await replyInThread(thread.threadTs, 'STEER: use tabs, please');
    await waitFor(async () => (await rt().db.tasks.get(taskId))?.status === 'COMPLETED', 60_000, 'the task to complete');
    await app.started.notifier.idle();

    const requests = modelRequests();
    expect(conversation(requests[0])).not.toContain('STEER: use tabs');
    expect(conversation(requests[1])).toContain('Sam Steerer: STEER: use tabs, please');
    expect(slack.callsTo('reactions.add').map((c) => c.args)).toEqual([
      expect.objectContaining({ channel: 'CWEB', timestamp: ts, name: 'eyes' }),
    ]);
    const lines = inThread(thread.threadTs).map((c) => JSON.stringify(c.args.blocks));
    expect(lines.some((l) => l.includes('📨 The agent got the message from Sam Steerer: “STEER: use tabs, please”'))).toBe(true);
    expect(await gitOut(origin, 'show', 'main:a.txt')).toBe('a');
  });

  it('a reply after the task finished resumes the same session, and the result lands in the same thread', async () => {
    fake.enqueue({ text: 'FIRST ANSWER: nothing to change yet.' });
    const id = await createTask('Look around');
    await waitFor(async () => eventsOf('task_completed', id).length === 1, 60_000, 'the first run to complete');
    // The run hands its agent back just after the task completes.
    await waitFor(async () => (await rt().db.agents.list()).every((a) => a.state === 'IDLE'), 60_000, 'the agent to be idle again');
    const first = await rt().db.taskResults.latest(id);
    const thread = await threadOf(id);
    const before = modelRequests().length;

    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'b.txt'), content: 'b\n' } }] },
      { text: 'Follow-up done: wrote b.txt.' },
    );
    await replyInThread(thread.threadTs, 'FOLLOW-UP: now write b.txt');
    await waitFor(async () => eventsOf('task_completed', id).length === 2, 60_000, 'the follow-up to complete');
    await app.started.notifier.idle();

    const history = conversation(modelRequests()[before]);
    expect(history.indexOf('FIRST ANSWER')).toBeGreaterThan(-1);
    expect(history.indexOf('FIRST ANSWER')).toBeLessThan(history.indexOf('Sam Steerer: FOLLOW-UP: now write b.txt'));
    expect(await rt().db.taskResults.latest(id)).toMatchObject({ summary: 'Follow-up done: wrote b.txt.', sessionId: first!.sessionId });
    expect(first?.sessionId).toEqual(expect.any(String));
    expect(await rt().db.taskThreads.get(id)).toEqual(thread);
    const replies = inThread(thread.threadTs).map((c) => String(c.args.text));
    expect(replies.filter((t) => t.startsWith('✅ Completed'))).toHaveLength(2);
    expect(replies).toContain('↩️ Follow-up queued: Look around');
    expect(await gitOut(origin, 'show', 'main:b.txt')).toBe('b');
  });
});
