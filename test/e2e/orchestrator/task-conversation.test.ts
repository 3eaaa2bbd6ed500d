import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic, type RecordedRequest } from '../../support/fake-anthropic';
import { gitOut } from '../../support/git-fixtures';
import { useForgeRemote } from '../../support/fake-forges';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(120_000);

/** The conversation of a request, flattened to text, for "does the agent see it" checks. */
const conversation = (r: RecordedRequest): string => JSON.stringify(r.body.messages ?? []);

/**
 * A task's thread as a conversation with the real Claude Code CLI (Agent SDK streaming input and
 * resume), against the loopback Messages API.
 */
describe('messages to a task’s agent, with the real Claude Code CLI (e2e)', () => {
  let h: Harness;
  let fake: FakeAnthropic;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    h = await makeHarness();
  });
  afterEach(async () => {
    await h.cleanup();
    await fake.close();
  });

  const modelRequests = () => fake.requests.filter((r) => Array.isArray(r.body.messages));

  async function startWithClaude(ghPath?: string): Promise<void> {
    const home = path.join(h.rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      messagePollMs: 50,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    await h.start({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager(ghPath ? { ghPath } : {})), progressIntervalMs: 50 });
  }

  it('a message sent while the task runs reaches the live session in its next request', async () => {
    let taskId = '';
    // The first answer is held until the run has taken the message, so it lands mid-turn.
    fake.enqueue(
      async () => {
        await waitFor(async () => h.eventsOf('task_message_delivered', taskId)[0], 60_000, 'the message to be delivered');
        return { toolUses: [{ name: 'Write', input: { file_path: path.join(h.workspace, 'a.txt'), content: 'a\n' } }] };
      },
      { text: 'Wrote a.txt, and used tabs as asked.' },
    );
    await startWithClaude();
    taskId = await h.task('Write a');
    await waitFor(async () => modelRequests().length > 0, 60_000, 'the CLI to call the API');
    expect(await h.rt.exec('message_task', { task_id: taskId, text: 'STEER: use tabs, please' })).toMatchObject({
      delivery: 'live',
      status: 'IN_PROGRESS',
    });

    await h.waitStatus(taskId, 'COMPLETED', 60_000);
    const delivered = h.eventsOf('task_message_delivered', taskId);
    expect(delivered).toHaveLength(1);
    expect(delivered[0].payload).toMatchObject({ title: 'Write a', text: 'STEER: use tabs, please', via: 'live' });
    const requests = modelRequests();
    expect(conversation(requests[0])).not.toContain('STEER: use tabs');
    expect(conversation(requests[1])).toContain('STEER: use tabs, please');
    expect(await h.rt.db.taskMessages.pending(taskId)).toEqual([]);
    expect((await h.rt.db.taskResults.latest(taskId))?.summary).toBe('Wrote a.txt, and used tabs as asked.');
    expect(await gitOut(h.origin, 'show', 'main:a.txt')).toBe('a');
  });

  it('a message after completion runs a follow-up that resumes the same session on the same branch', async () => {
    fake.enqueue({ text: 'FIRST ANSWER: nothing to change yet.' });
    await startWithClaude();
    const id = await h.task('Look around');
    await h.waitStatus(id, 'COMPLETED', 60_000);
    const first = await h.rt.db.taskResults.latest(id);
    expect(first?.sessionId).toEqual(expect.any(String));
    const before = modelRequests().length;

    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(h.workspace, 'b.txt'), content: 'b\n' } }] },
      { text: 'Follow-up done: wrote b.txt.' },
    );
    expect(await h.rt.exec('message_task', { task_id: id, text: 'FOLLOW-UP: now write b.txt' })).toMatchObject({
      delivery: 'follow_up',
      previous_status: 'COMPLETED',
      status: 'READY',
      resumes_session: true,
    });
    await waitFor(async () => h.eventsOf('task_completed', id).length === 2, 60_000, 'the follow-up to complete');

    const followUp = modelRequests()[before];
    // The resumed session carries the earlier turns before the new instruction.
    const history = conversation(followUp);
    expect(history).toContain('Do NOT push');
    expect(history).toContain('FIRST ANSWER: nothing to change yet.');
    expect(history.indexOf('FIRST ANSWER')).toBeLessThan(history.indexOf('FOLLOW-UP: now write b.txt'));
    const second = await h.rt.db.taskResults.latest(id);
    expect(second).toMatchObject({ result: 'COMPLETED', summary: 'Follow-up done: wrote b.txt.', sessionId: first!.sessionId });
    expect(h.eventsOf('task_message_delivered', id)[0].payload).toMatchObject({ via: 'follow_up', text: 'FOLLOW-UP: now write b.txt' });
    const branch = (await h.rt.db.tasks.get(id))!.branchName;
    expect(h.eventsOf('task_started', id).map((e) => e.payload.branch)).toEqual([branch, branch]);
    expect(await gitOut(h.origin, 'show', 'main:b.txt')).toBe('b');
  });

  it('a follow-up of a task awaiting approval pushes to its PR instead of opening another', async () => {
    const gh = path.join(h.rt.home, 'fake-gh');
    const ghLog = path.join(h.rt.home, 'gh-calls.log');
    await writeFile(
      gh,
      `#!/bin/sh\necho "$@" >> ${ghLog}\nif [ "$1" = "pr" ]; then echo "https://github.com/acme/widget/pull/42"; fi\nexit 0\n`,
    );
    await chmod(gh, 0o755);
    await useForgeRemote(h.workspace, h.origin, 'https://github.com/acme/widget.git');
    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(h.workspace, 'feature.txt'), content: 'v1\n' } }] },
      { text: 'Version 1.' },
    );
    await startWithClaude(gh);
    const id = await h.task('Reviewed feature', { requiresApproval: true });
    await h.waitStatus(id, 'AWAITING_APPROVAL', 60_000);
    const branch = (await h.rt.db.tasks.get(id))!.branchName!;
    expect(await gitOut(h.origin, 'show', `${branch}:feature.txt`)).toBe('v1');

    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(h.workspace, 'feature.txt'), content: 'v2\n' } }] },
      { text: 'Version 2, as reviewed.' },
    );
    expect(await h.rt.exec('message_task', { task_id: id, text: 'Reviewer: make it v2' })).toMatchObject({
      delivery: 'follow_up',
      previous_status: 'AWAITING_APPROVAL',
    });
    await waitFor(async () => h.eventsOf('task_awaiting_approval', id).length === 2, 60_000, 'the follow-up to await approval again');

    expect(await h.rt.db.tasks.get(id)).toMatchObject({
      status: 'AWAITING_APPROVAL',
      prUrl: 'https://github.com/acme/widget/pull/42',
      branchName: branch,
    });
    expect(await gitOut(h.origin, 'show', `${branch}:feature.txt`)).toBe('v2');
    const prCreates = (await readFile(ghLog, 'utf8')).split('\n').filter((l) => l.startsWith('pr create'));
    expect(prCreates).toHaveLength(1);
    expect(h.eventsOf('pr_created', id)).toHaveLength(1);
  });
});
