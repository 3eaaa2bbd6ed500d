import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { createOriginRepo, gitOut } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { waitFor } from '../../integration/orchestrator/harness';

jest.setTimeout(120_000);

/**
 * The zero-setup path with the real Claude Code CLI (through the Agent SDK) against a loopback
 * Messages API: create_project → add_repo → create_task, and nothing else. The daemon's default
 * pool supplies the agent and clones the workspace from the repo. No network, no token.
 */
describe('zero setup with the real Claude Code CLI (e2e)', () => {
  let rt: TestRuntime;
  let fake: FakeAnthropic;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    rt = await makeTestRuntime();
  });
  afterEach(async () => {
    await rt.stopDaemon();
    await rt.cleanup();
    await fake.close();
  });

  it('create_project, add_repo, create_task → the task runs in a provisioned workspace, merged to origin', async () => {
    const origin = await createOriginRepo(rt.home);
    await rt.exec('create_project', { name: 'widget' });
    expect(await rt.exec('add_repo', { project_id: 'widget', source: 'clone', url: origin })).toMatchObject({ created: 'origin' });
    const workspace = path.join(rt.config.workspaceDir, 'widget', 'workspaces', 'ws-1');
    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'hello.txt'), content: 'hello with zero setup\n' } }] },
      { text: 'Created hello.txt.' },
    );
    const home = path.join(rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    const started: Array<Record<string, unknown>> = [];
    rt.events.subscribe((e) => {
      if (e.type === 'task_started') started.push(e.payload);
    });
    await rt.startDaemon({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager()), intervalMs: 200, progressIntervalMs: 50 });

    const id = (await rt.exec('create_task', { project_id: 'widget', title: 'Say hello', description: 'Create hello.txt.' }))
      .created as string;
    await waitFor(async () => (await rt.exec('get_task', { task_id: id })).status === 'COMPLETED', 90_000, 'the task to complete');
    // The run hands its workspace and agent back just after the task is marked complete.
    await waitFor(async () => (await rt.db.agents.list()).every((a) => a.state === 'IDLE'), 60_000, 'the agents to be idle again');

    expect(await gitOut(origin, 'show', 'main:hello.txt')).toBe('hello with zero setup');
    expect((await rt.exec('list_workspaces', { project_id: 'widget' })).workspaces).toEqual([
      expect.objectContaining({ id: 'widget-ws-1', path: workspace, source_type: 'clone', repo_id: 'origin', locked_by_task_id: null }),
    ]);
    const agents = (await rt.exec('list_agents')).agents as Array<{ id: string; state: string }>;
    expect(agents.map((a) => a.id)).toEqual(['agent-1', 'agent-2']);
    expect(started).toEqual([
      expect.objectContaining({ title: 'Say hello', workspace_path: workspace, agent_id: expect.stringMatching(/^agent-[12]$/) }),
    ]);
    expect(await rt.exec('get_status')).toMatchObject({ not_starting: [] });
    expect((await rt.db.taskResults.latest(id))?.summary).toBe('Created hello.txt.');
  });
});
