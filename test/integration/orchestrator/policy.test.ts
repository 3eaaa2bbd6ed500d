import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { gitOut } from '../../support/git-fixtures';
import { useForgeRemote } from '../../support/fake-forges';
import { makeHarness, untilAborted, waitFor, writeIn, type Harness } from './harness';

describe('scheduling policy, workspaces and approval', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  it('respects max_concurrent_agents and never runs two tasks in one workspace', async () => {
    h = await makeHarness({ agents: 3, workspaces: 3 });
    await h.rt.db.projects.update('proj', { maxConcurrentAgents: 2 });
    let live = 0;
    let peak = 0;
    const cwds = new Set<string>();
    // Runs hold until the test has seen a full scheduling pass with both slots taken.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.adapter.fallback = async (req) => {
      live++;
      peak = Math.max(peak, live);
      expect(cwds.has(req.cwd)).toBe(false);
      cwds.add(req.cwd);
      await held;
      cwds.delete(req.cwd);
      live--;
      return {};
    };
    const ids = await Promise.all([1, 2, 3, 4, 5].map((i) => h.task(`T${i}`)));
    await h.start();
    await waitFor(async () => live === 2, 60_000, 'two runs at once');
    await h.rt.daemon()!.runCycle();
    expect(live).toBe(2);
    release();
    for (const id of ids) await h.waitStatus(id, 'COMPLETED', 30_000);
    expect(peak).toBe(2);
  });

  it('schedules nothing while the orchestrator or the project is paused', async () => {
    h = await makeHarness();
    await h.rt.exec('orchestrator_control', { action: 'pause' });
    const id = await h.task('Wait for resume');
    await h.start();
    await h.rt.daemon()!.runCycle();
    expect(await h.status(id)).toBe('READY');
    await h.rt.db.projects.update('proj', { status: 'PAUSED' });
    await h.rt.exec('orchestrator_control', { action: 'resume' });
    await h.rt.daemon()!.runCycle();
    expect(await h.status(id)).toBe('READY');
    await h.rt.db.projects.update('proj', { status: 'ACTIVE' });
    h.rt.daemon()!.kick();
    await h.waitStatus(id, 'COMPLETED');
  });

  it('a task waits (one notice, no loop) while every workspace is busy', async () => {
    h = await makeHarness({ agents: 2, workspaces: 1 });
    h.adapter.fallback = async (req) => {
      if (!req.prompt.includes('Holder')) return {};
      await untilAborted(req);
      return { status: 'aborted' };
    };
    await h.start();
    const holder = await h.task('Holder', { priority: 1 });
    await h.waitStatus(holder, 'IN_PROGRESS');
    const waiter = await h.task('Waiter');
    for (let i = 0; i < 5; i++) await h.rt.daemon()!.runCycle();
    expect(await h.status(waiter)).toBe('READY');
    expect(h.eventsOf('task_waiting_workspace', waiter)).toHaveLength(1);
    await h.rt.exec('stop_task', { task_id: holder });
    await h.waitStatus(waiter, 'COMPLETED');
  });

  it('a project with no workspace row uses its directory when it is a git repo, else keeps its tasks READY with a reason', async () => {
    h = await makeHarness();
    await h.rt.db.projects.create({ id: 'bare', name: 'bare', workspace: path.join(h.rt.home, 'not-a-repo') });
    await mkdir(path.join(h.rt.home, 'not-a-repo'), { recursive: true });
    const dir = path.join(h.rt.home, 'linked');
    await gitOut(h.rt.home, 'clone', h.origin, dir);
    await h.rt.db.projects.create({ id: 'linked', name: 'linked', workspace: dir });
    const blocked = await h.rt.db.tasks.create({ projectId: 'bare', title: 'Nowhere to run', description: 'x' });
    const implicit = await h.rt.db.tasks.create({ projectId: 'linked', title: 'Runs in the project dir', description: 'x' });
    h.adapter.fallback = async (req) => {
      await writeIn(req, 'implicit.txt', 'ok\n');
      return {};
    };
    await h.start();
    await h.waitStatus(implicit.id, 'COMPLETED');
    await h.rt.daemon()!.runCycle();
    expect(await h.rt.exec('get_task', { task_id: blocked.id })).toMatchObject({
      status: 'READY',
      waiting_code: 'no_workspace',
      waiting_reason: expect.stringContaining('add_repo'),
    });
    expect(h.eventsOf('task_blocked', blocked.id)).toHaveLength(0);
    expect(h.adapter.calls.find((c) => c.taskId === implicit.id)!.cwd).toBe(dir);
    expect((await h.rt.db.workspaces.list('linked')).map((w) => w.path)).toEqual([dir]);
  });

  it('requires_approval on GitHub: pushes the branch, opens a PR with gh, stores pr_url → AWAITING_APPROVAL', async () => {
    h = await makeHarness();
    const gh = path.join(h.rt.home, 'fake-gh');
    await writeFile(gh, '#!/bin/sh\nif [ "$1" = "pr" ]; then echo "https://github.com/acme/widget/pull/7"; fi\nexit 0\n');
    await chmod(gh, 0o755);
    h.adapter.fallback = async (req) => {
      await writeIn(req, 'feature.txt', 'f\n');
      return { summary: 'feature done' };
    };
    await useForgeRemote(h.workspace, h.origin, 'https://github.com/acme/widget.git');
    await h.start({ git: new GitManagerTaskGit(new GitManager({ ghPath: gh })) });
    const id = await h.task('Needs review', { requiresApproval: true });
    await h.waitStatus(id, 'AWAITING_APPROVAL');
    const task = await h.rt.db.tasks.get(id);
    expect(task!.prUrl).toBe('https://github.com/acme/widget/pull/7');
    expect(await gitOut(h.origin, 'show', `${task!.branchName}:feature.txt`)).toBe('f');
    await expect(gitOut(h.origin, 'show', 'main:feature.txt')).rejects.toThrow();
    await waitFor(async () => h.eventsOf('pr_created', id)[0]);
    expect(h.eventsOf('task_awaiting_approval', id)[0].payload).toMatchObject({
      title: 'Needs review',
      pr_url: 'https://github.com/acme/widget/pull/7',
    });
    expect(h.eventsOf('pr_created', id)[0].payload).toEqual({ title: 'Needs review', pr_url: 'https://github.com/acme/widget/pull/7' });
  });

  it('requires_approval without gh: still AWAITING_APPROVAL, with a note saying why there is no PR', async () => {
    h = await makeHarness();
    await useForgeRemote(h.workspace, h.origin, 'https://github.com/acme/widget.git');
    await h.start({ git: new GitManagerTaskGit(new GitManager({ ghPath: path.join(h.rt.home, 'no-such-gh') })) });
    const id = await h.task('Needs review', { requiresApproval: true });
    await h.waitStatus(id, 'AWAITING_APPROVAL');
    const event = await waitFor(async () => h.eventsOf('task_awaiting_approval', id)[0]);
    expect(event.payload.pr_url).toBeNull();
    expect(String(event.payload.note)).toContain('not installed');
    expect(h.eventsOf('pr_created', id)).toHaveLength(0);
  });

  it('a merge conflict goes back to the agent with the conflicting files, and its resolution lands', async () => {
    h = await makeHarness();
    h.adapter.fallback = async (req, attempt) => {
      if (attempt === 1) {
        await writeIn(req, 'README.md', 'agent version\n');
        // Meanwhile someone pushes a conflicting change to main.
        const scratch = path.join(h.rt.home, 'scratch');
        await gitOut(h.rt.home, 'clone', h.origin, scratch);
        await writeFile(path.join(scratch, 'README.md'), 'human version\n');
        await gitOut(scratch, '-c', 'user.name=h', '-c', 'user.email=h@x', 'commit', '-am', 'human');
        await gitOut(scratch, 'push', 'origin', 'main');
        return {};
      }
      // The follow-up in the same branch: the conflict is the instruction; the agent redoes its
      // change on top of the current main, keeping both.
      expect(req.prompt).toContain('conflicts with origin/main in README.md');
      await gitOut(req.cwd, 'fetch', '-q', 'origin');
      await gitOut(req.cwd, 'reset', '-q', '--hard', 'origin/main');
      await writeIn(req, 'README.md', 'human version\nagent version\n');
      return { summary: 'kept both versions' };
    };
    await h.start();
    const id = await h.task('Conflicting');
    await h.waitStatus(id, 'COMPLETED', 120_000);
    const sentBack = h.eventsOf('landing_sent_back', id);
    expect(sentBack).toHaveLength(1);
    expect(sentBack[0].payload).toMatchObject({ title: 'Conflicting', tries: 1 });
    expect(String(sentBack[0].payload.reason)).toContain('README.md');
    expect(h.adapter.attempts.get(id)).toBe(2);
    expect(h.eventsOf('merge_failed', id)).toHaveLength(0);
    expect(h.eventsOf('task_blocked', id)).toHaveLength(0);
    expect(h.eventsOf('landed', id)).toHaveLength(1);
    // Landed: the workspace is back on a clean main, and origin's main has both changes.
    expect(await gitOut(h.workspace, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(await gitOut(h.workspace, 'status', '--porcelain')).toBe('');
    expect(await gitOut(h.origin, 'show', 'main:README.md')).toBe('human version\nagent version');
  });
});
