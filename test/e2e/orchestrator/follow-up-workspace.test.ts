import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic, type RecordedRequest, type ScriptedAnswer } from '../../support/fake-anthropic';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(180_000);

const conversation = (r: RecordedRequest): string => JSON.stringify(r.body.messages ?? []);
const toolResultCount = (r: RecordedRequest): number => (conversation(r).match(/"tool_result"/g) ?? []).length;

/**
 * A follow-up resumes its agent session, whose conversation names the absolute paths of the
 * workspace it worked in. While another task holds that workspace, the follow-up waits for it
 * (and says so), then moves with a first message the agent cannot miss; a run whose every write
 * was refused by the path guard is a failure. Real Claude Code CLI, loopback Messages API.
 */
describe('follow-ups keep their workspace (real Claude Code CLI)', () => {
  let h: Harness;
  let fake: FakeAnthropic;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    h = await makeHarness({ workspaces: 2, agents: 2 });
  });
  afterEach(async () => {
    await h.cleanup();
    await fake.close();
  });

  it('waits for its own workspace while another task holds it, then moves, told loudly; refused writes fail the run', async () => {
    const ws0 = h.workspace;
    const ws1 = (await h.rt.db.workspaces.get('ws1'))!.path;
    // One model for both tasks, answering by what each conversation holds.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const route = (req: RecordedRequest): ScriptedAnswer | Promise<ScriptedAnswer> => {
      const text = conversation(req);
      if (text.includes('Hold the workspace')) return held.then(() => ({ text: 'holding' }));
      if (text.includes('YOUR WORKSPACE HAS MOVED')) {
        // A model that follows the old paths of its resumed conversation.
        if (toolResultCount(req) === 1) {
          return { toolUses: [{ name: 'Write', input: { file_path: path.join(ws0, 'follow-up.txt'), content: 'again\n' } }] };
        }
        return { text: 'Updated follow-up.txt.' };
      }
      if (toolResultCount(req) === 0) {
        return { toolUses: [{ name: 'Write', input: { file_path: path.join(ws0, 'first.txt'), content: 'first\n' } }] };
      }
      return { text: 'Wrote first.txt.' };
    };
    for (let i = 0; i < 20; i++) fake.enqueue(route);
    const home = path.join(h.rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    await h.start({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager()) });

    const first = await h.task('Write the first file', { maxRetries: 1, preferredWorkspaceId: 'ws0' });
    await h.waitStatus(first, 'COMPLETED', 90_000);
    expect((await h.rt.db.tasks.get(first))!.workspaceId).toBe('ws0');

    // Another task takes ws0 and keeps it.
    const holder = await h.task('Hold the workspace', { preferredWorkspaceId: 'ws0' });
    await h.waitStatus(holder, 'IN_PROGRESS', 60_000);
    expect((await h.rt.db.workspaces.get('ws0'))!.lockedByTaskId).toBe(holder);

    expect(await h.rt.exec('message_task', { task_id: first, text: 'Please also write follow-up.txt.' })).toMatchObject({
      delivery: 'follow_up',
    });
    const waiting = await waitFor(async () => h.eventsOf('task_waiting_workspace', first)[0]);
    expect(waiting.payload.reason).toBe(
      `The follow-up waits for workspace 'ws0', where its agent worked, which task ${holder} is using; after 10 minutes it moves to another workspace.`,
    );
    // ws1 is free, yet the follow-up stays queued for ws0, and get_task says why.
    await waitFor(async () => (await h.rt.exec('get_task', { task_id: first })).waiting_reason, 15_000, 'a waiting reason');
    const shown = await h.rt.exec('get_task', { task_id: first });
    expect(shown).toMatchObject({ status: 'READY' });
    expect(String(shown.waiting_reason)).toContain("Its follow-up waits for workspace 'ws0'");
    expect((await h.rt.db.workspaces.get('ws1'))!.lockedByTaskId).toBeNull();

    // Ten minutes pass (the follow-up's message is dated back): it lets go of ws0 and moves.
    await h.rt.db
      .em()
      .getConnection()
      .execute('update task_messages set created_at = ? where task_id = ?', [Date.now() - 11 * 60_000, first]);
    h.rt.daemon()?.kick();
    await waitFor(async () => h.eventsOf('task_waiting_workspace', first)[1], 30_000, 'the move notice');
    expect(h.eventsOf('task_waiting_workspace', first)[1].payload.reason).toBe(
      "Workspace 'ws0' stayed busy for 10 minutes: the follow-up moves to another workspace, and its agent is told so.",
    );
    await waitFor(async () => h.eventsOf('task_failed', first)[0], 90_000, 'the follow-up to end');

    // Its first message named both folders before anything else.
    const movedRequest = fake.requests.find((r) => conversation(r).includes('YOUR WORKSPACE HAS MOVED'))!;
    const last = [...(movedRequest.body.messages ?? [])].reverse().find((m) => m.role === 'user')!;
    const prompt = JSON.stringify(last.content);
    expect(prompt.indexOf('YOUR WORKSPACE HAS MOVED')).toBeLessThan(prompt.indexOf('Please also write follow-up.txt.'));
    expect(prompt).toContain(`Earlier in this conversation you worked in ${ws0}.`);
    expect(prompt).toContain(`Your workspace is now ${ws1}`);

    // The model wrote to the old path anyway: refused, nothing changed, reported as a failure.
    expect(existsSync(path.join(ws0, 'follow-up.txt'))).toBe(false);
    const failed = h.eventsOf('task_failed', first)[0];
    expect(failed.payload.error).toBe(
      `Every file write of this run was refused because it was outside the workspace (${path.join(ws0, 'follow-up.txt')}), so nothing was changed. The agent works in ${ws1}: send a follow-up naming that folder, or restart the task.`,
    );
    expect((await h.rt.db.taskResults.latest(first))!.result).toBe('FAILED');
    expect(h.eventsOf('task_completed', first)).toHaveLength(1);
    await h.rt.exec('stop_task', { task_id: holder });
    release();
  });
});
