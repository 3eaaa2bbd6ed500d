import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { createOriginRepo, gitOut } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { ScriptedAdapter, waitFor, writeIn } from './harness';

/**
 * Zero setup: create_project → add_repo → create_task runs the task. Workspaces are cloned from
 * the project's repo as slots need them (up to max_concurrent_agents) and the daemon keeps a
 * default pool of agents (AQ_AGENTS, 2 by default). Real SQLite, real git, a scripted agent.
 */
jest.setTimeout(90_000);

describe('zero setup: a project, a repo and a task are enough', () => {
  let rt: TestRuntime;
  let adapter: ScriptedAdapter;
  afterEach(async () => {
    await rt.stopDaemon();
    await rt.cleanup();
  });

  async function start(env: Record<string, string> = {}): Promise<void> {
    rt = await makeTestRuntime(env);
    adapter = new ScriptedAdapter();
  }
  const startDaemon = () =>
    rt.startDaemon({
      adapters: { claude: adapter },
      git: new GitManagerTaskGit(new GitManager()),
      intervalMs: 100,
      progressIntervalMs: 20,
    });
  const status = async (id: string) => ((await rt.exec('get_task', { task_id: id })) as { status: string }).status;
  const waitStatus = (id: string, want: string) => waitFor(async () => (await status(id)) === want, 60_000, `${id} to be ${want}`);
  const createTask = async (title: string, extra: Record<string, unknown> = {}) =>
    (await rt.exec('create_task', { project_id: 'widget', title, description: `Do: ${title}`, ...extra })).created as string;

  it('runs tasks with no create_agent or add_workspace: workspaces appear on demand, up to max_concurrent_agents', async () => {
    await start();
    const origin = await createOriginRepo(rt.home);
    expect(await rt.exec('create_project', { name: 'widget', max_concurrent_agents: 2 })).toMatchObject({ created: 'widget' });
    expect(await rt.exec('add_repo', { project_id: 'widget', source: 'clone', url: origin })).toMatchObject({ created: 'origin' });
    const gate: Array<() => void> = [];
    let live = 0;
    let peak = 0;
    adapter.fallback = async (req) => {
      live++;
      peak = Math.max(peak, live);
      await writeIn(req, `${req.taskId}.txt`, `${req.taskId}\n`);
      if (req.prompt.includes('Held')) await new Promise<void>((resolve) => gate.push(resolve));
      live--;
      return { summary: `wrote ${req.taskId}.txt` };
    };
    await startDaemon();

    // One task: one workspace, cloned from the repo; the pool's first agent runs it.
    const first = await createTask('First');
    await waitStatus(first, 'COMPLETED');
    expect(await gitOut(origin, 'show', `main:${first}.txt`)).toBe(first);
    const ws1 = path.join(rt.config.workspaceDir, 'widget', 'workspaces', 'ws-1');
    expect((await rt.exec('list_workspaces', { project_id: 'widget' })).workspaces).toEqual([
      expect.objectContaining({ id: 'widget-ws-1', name: 'ws-1', path: ws1, source_type: 'clone', repo_id: 'origin' }),
    ]);
    expect(adapter.calls[0].cwd).toBe(ws1);
    expect(((await rt.exec('list_agents')).agents as Array<{ id: string }>).map((a) => a.id)).toEqual(['agent-1', 'agent-2']);

    // Three held tasks: a second workspace for the second slot, never a third.
    const held = [await createTask('Held A'), await createTask('Held B'), await createTask('Held C')];
    await waitFor(async () => gate.length === 2, 60_000, 'two held runs');
    const workspaces = (await rt.exec('list_workspaces', { project_id: 'widget' })).workspaces as Array<{ id: string }>;
    expect(workspaces.map((w) => w.id)).toEqual(['widget-ws-1', 'widget-ws-2']);
    const statuses = await Promise.all(held.map(status));
    expect(statuses.filter((s) => s === 'IN_PROGRESS')).toHaveLength(2);
    const queued = held[statuses.indexOf('READY')];
    expect(await rt.exec('get_task', { task_id: queued })).toMatchObject({
      status: 'READY',
      waiting_code: 'slots_busy',
      waiting_reason: expect.stringContaining("All 2 agent slot(s) of project 'widget' are busy"),
    });
    expect((await rt.exec('get_status')).not_starting).toEqual([
      { project_id: 'widget', ready: 1, code: 'slots_busy', reason: expect.any(String) },
    ]);
    while (gate.length) gate.shift()!();
    await waitFor(async () => gate.length > 0, 60_000, 'the third held run');
    gate.shift()!();
    for (const id of held) await waitStatus(id, 'COMPLETED');
    expect(peak).toBe(2);
    for (const id of held) expect(await gitOut(origin, 'show', `main:${id}.txt`)).toBe(id);
    expect(((await rt.exec('list_workspaces', { project_id: 'widget' })).workspaces as unknown[]).length).toBe(2);
    expect(await rt.exec('get_status')).toMatchObject({ not_starting: [] });
  });

  it('a task created before its repo waits READY with the reason, and runs once add_repo is done', async () => {
    await start();
    const origin = await createOriginRepo(rt.home);
    await rt.exec('create_project', { name: 'widget' });
    adapter.fallback = async (req) => {
      await writeIn(req, 'late.txt', 'late\n');
      return {};
    };
    await startDaemon();
    const id = await createTask('Early bird');
    await rt.daemon()!.runCycle();
    expect(await rt.exec('get_task', { task_id: id })).toMatchObject({
      status: 'READY',
      waiting_code: 'no_workspace',
      waiting_reason: "Project 'widget' has no workspace and no repository to make one from: add one with add_repo (or add_workspace).",
    });
    expect((await rt.exec('get_status')).not_starting).toEqual([
      { project_id: 'widget', ready: 1, code: 'no_workspace', reason: expect.stringContaining('add_repo') },
    ]);
    await rt.exec('add_repo', { project_id: 'widget', source: 'clone', url: origin });
    rt.daemon()!.kick();
    await waitStatus(id, 'COMPLETED');
    expect(await gitOut(origin, 'show', 'main:late.txt')).toBe('late');
  });

  it('says why provisioning failed, and tries again with a repo that works', async () => {
    await start();
    const origin = await createOriginRepo(rt.home);
    await rt.exec('create_project', { name: 'widget' });
    const plain = path.join(rt.config.workspaceDir, 'not-a-repo');
    await mkdir(plain, { recursive: true });
    expect(await rt.exec('add_repo', { project_id: 'widget', source: 'link', path: plain })).toMatchObject({ created: 'not-a-repo' });
    await startDaemon();
    const id = await createTask('Needs a clone');
    await waitFor(
      async () => (await rt.exec('get_task', { task_id: id })).waiting_code === 'workspace_failed',
      20_000,
      'the provisioning failure',
    );
    const task = await rt.exec('get_task', { task_id: id });
    expect(task.status).toBe('READY');
    expect(task.waiting_reason).toMatch(/^Preparing a workspace for project 'widget' failed: Could not clone .*not-a-repo/);
    expect((await rt.exec('get_status')).not_starting).toEqual([
      expect.objectContaining({ project_id: 'widget', code: 'workspace_failed' }),
    ]);
    // A workspace added by hand is used at once.
    await rt.exec('add_workspace', { project_id: 'widget', url: origin, name: 'manual' });
    rt.daemon()!.kick();
    await waitStatus(id, 'COMPLETED');
    expect(adapter.calls[0].cwd).toBe(path.join(rt.config.workspaceDir, 'widget', 'workspaces', 'manual'));
  });

  it('AQ_AGENTS=0 leaves agents to create_agent, and says so while there is none', async () => {
    await start({ AQ_AGENTS: '0' });
    const origin = await createOriginRepo(rt.home);
    await rt.exec('create_project', { name: 'widget' });
    await rt.exec('add_repo', { project_id: 'widget', source: 'clone', url: origin });
    await startDaemon();
    const id = await createTask('Needs an agent');
    await rt.daemon()!.runCycle();
    expect(await rt.exec('get_task', { task_id: id })).toMatchObject({
      status: 'READY',
      waiting_code: 'no_agent',
      waiting_reason: expect.stringContaining('create_agent'),
    });
    expect((await rt.exec('list_agents')).agents).toEqual([]);
    await rt.exec('create_agent', { name: 'Solo' });
    await waitStatus(id, 'COMPLETED');
    expect(adapter.calls).toHaveLength(1);
  });
});
