import { access, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PLAN_FILE_MAX_BYTES } from '../../../src/plan/parser';
import { gitOut } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';
import { makeHarness, waitFor, writeIn, type Harness } from './harness';

const PLAN = `# Build the widget

Background: the widget renders reports for the team.

## Phase 1: Add the model

Create src/model.ts with the Widget type and its fields.

## Phase 2: Add the view

Render the widget in src/view.ts using the model from phase 1.

## Phase 3: Wire it up

Export both from src/index.ts and add a smoke test.
`;

describe('plans become chained subtasks', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  it('creates one DEFINED child per phase, chained, re-wired, archived, and runs them on the parent branch', async () => {
    h = await makeHarness();
    let parentId = '';
    h.adapter.fallback = async (req) => {
      if (req.taskId === parentId) await writeIn(req, '.agent/plan.md', PLAN);
      else await writeIn(req, `${req.taskId}.txt`, req.taskId);
      return { summary: `did ${req.taskId}` };
    };
    parentId = await h.task('Plan the widget', { priority: 50, requiresApproval: false });
    const downstream = await h.task('After the widget', { priority: 10 }, [parentId]);
    // Paused so the chain can be inspected before it runs.
    await h.rt.orchestrator.pause();
    await h.start();
    await h.rt.orchestrator.resume();
    const created = await waitFor(async () => h.eventsOf('plan_tasks_created', parentId)[0]);
    await h.rt.orchestrator.pause();
    // The plan's tasks are created before the parent's completion is written.
    await h.waitStatus(parentId, 'COMPLETED');
    const tasks = created.payload.tasks as Array<{ id: string; title: string }>;
    expect(tasks.map((t) => t.title)).toEqual(['Add the model', 'Add the view', 'Wire it up']);
    expect(created.payload.title).toBe('Plan the widget');

    const db = h.rt.db;
    const parent = await db.tasks.get(parentId);
    const children = await Promise.all(tasks.map((t) => db.tasks.get(t.id)));
    children.forEach((c, i) => {
      expect(c).toMatchObject({
        parentTaskId: parentId,
        isPlanSubtask: true,
        planDepth: 1,
        priority: 50 + i,
        preferredWorkspaceId: 'ws0',
        requiresApproval: false,
      });
      expect(c!.description).toContain('## Background Context');
      expect(c!.description).toContain('This task is part of the implementation plan from: **Plan the widget**');
    });
    expect((await db.tasks.upstream(tasks[0].id)).map((u) => u.id)).toEqual([parentId]);
    expect((await db.tasks.upstream(tasks[1].id)).map((u) => u.id)).toEqual([tasks[0].id]);
    expect((await db.tasks.upstream(tasks[2].id)).map((u) => u.id)).toEqual([tasks[1].id]);
    expect((await db.tasks.upstream(downstream)).map((u) => u.id).sort()).toEqual([parentId, tasks[2].id].sort());

    // Archived (moved and committed), so it is not parsed again.
    await expect(access(path.join(h.workspace, '.agent/plan.md'))).rejects.toThrow();
    expect(await gitOut(h.workspace, 'show', `${parent!.branchName}:.agent/plans/${parentId}-plan.md`)).toContain('## Phase 1');
    // The parent completes without merging; the chain continues on its branch.
    expect(parent!.status).toBe('COMPLETED');
    expect(h.eventsOf('task_completed', parentId)[0].payload.merged).toBe(false);

    await h.rt.orchestrator.resume();
    h.rt.daemon()!.kick();
    await h.waitStatus(downstream, 'COMPLETED', 30_000);
    const order = h.adapter.calls.map((c) => c.taskId);
    expect(order).toEqual([parentId, ...tasks.map((t) => t.id), downstream]);
    for (const t of tasks) expect((await db.tasks.get(t.id))!.branchName).toBe(parent!.branchName);
    // Intermediate steps do not merge; the last one merges the whole chain.
    expect(h.eventsOf('task_completed', tasks[0].id)[0].payload.merged).toBe(false);
    expect(h.eventsOf('task_completed', tasks[2].id)[0].payload.merged).toBe(true);
    for (const t of tasks) expect(await gitOut(h.origin, 'show', `main:${t.id}.txt`)).toBe(t.id);
    // Subtask prompts say to implement directly.
    expect(h.adapter.calls[1].prompt).toContain('Implement this step DIRECTLY');
  });

  it('only the last child inherits requires_approval', async () => {
    h = await makeHarness();
    let parentId = '';
    h.adapter.fallback = async (req) => {
      if (req.taskId === parentId) await writeIn(req, '.agent/plan.md', PLAN);
      return {};
    };
    await h.rt.orchestrator.pause();
    parentId = await h.task('Plan with approval', { requiresApproval: true });
    await h.start();
    await h.rt.orchestrator.resume();
    const created = await waitFor(async () => h.eventsOf('plan_tasks_created', parentId)[0]);
    await h.rt.orchestrator.pause();
    const flags = await Promise.all(
      (created.payload.tasks as Array<{ id: string }>).map(async (t) => (await h.rt.db.tasks.get(t.id))!.requiresApproval),
    );
    expect(flags).toEqual([false, false, true]);
  });

  it('ignores a plan whose frontmatter opts out, and a document with no phases (single-step fallback)', async () => {
    h = await makeHarness({ agents: 1 });
    const contents: Record<string, string> = {};
    h.adapter.fallback = async (req) => {
      const body = contents[req.taskId];
      if (body) await writeIn(req, '.agent/plan.md', body);
      return {};
    };
    await h.rt.orchestrator.pause();
    const optOut = await h.task('Opt out');
    contents[optOut] = `---\nauto_tasks: false\n---\n${PLAN}`;
    await h.start();
    await h.rt.orchestrator.resume();
    await h.waitStatus(optOut, 'COMPLETED');
    const skip1 = await waitFor(async () => h.eventsOf('plan_skipped', optOut)[0]);
    expect(String(skip1.payload.reason)).toContain('auto_tasks: false');

    // The next task leaves an informational document.
    const doc = await h.task('Write notes');
    contents[doc] = '# Notes on the design\n\nThe widget should stay small. We chose SQLite because it is embedded and fast enough.\n';
    await h.waitStatus(doc, 'COMPLETED');
    const skip2 = await waitFor(async () => h.eventsOf('plan_skipped', doc)[0]);
    expect(String(skip2.payload.reason)).toContain('no phases');

    // A plan larger than a plan may be is not read at all.
    const huge = await h.task('Write a huge plan');
    contents[huge] = `${PLAN}\n${'x'.repeat(PLAN_FILE_MAX_BYTES)}\n`;
    await h.waitStatus(huge, 'COMPLETED');
    const skip3 = await waitFor(async () => h.eventsOf('plan_skipped', huge)[0]);
    expect(skip3.payload.reason).toBe('it is 4.0 MB, more than the 4 MB a plan may be.');
    expect(h.eventsOf('plan_tasks_created')).toHaveLength(0);
  });
  it('reads no plan through a link that leads out of the workspace, and archives none there', async () => {
    h = await makeHarness({ agents: 1 });
    const { dir: outside, cleanup } = await makeTempDir('aq-plan-outside-');
    try {
      // Another project's plan, and a folder the archive would land in.
      await writeFile(path.join(outside, 'plan.md'), PLAN);
      h.adapter.fallback = async (req) => {
        await symlink(outside, path.join(req.cwd, '.agent'));
        await utimes(path.join(outside, 'plan.md'), new Date(), new Date());
        return {};
      };
      const id = await h.task('Link out');
      await h.start();
      await h.waitStatus(id, 'COMPLETED');
      const skipped = await waitFor(async () => h.eventsOf('plan_skipped', id)[0]);
      expect(skipped.payload.reason).toBe('a link in its path leads outside the workspace.');
      expect(await readdir(outside)).toEqual(['plan.md']);
      expect(h.eventsOf('plan_tasks_created')).toHaveLength(0);
    } finally {
      await cleanup();
    }
  });

  it("redacts the app's own secret values in the plan an agent writes and in what it reports", async () => {
    const token = 'xoxb-plan-secret-0123456789';
    h = await makeHarness({ env: { SLACK_BOT_TOKEN: token } });
    let parentId = '';
    h.adapter.fallback = async (req) => {
      if (req.taskId !== parentId) return {};
      await writeIn(req, '.agent/plan.md', PLAN.replace('with the Widget type', `with the Widget type (Slack token ${token})`));
      req.onProgress?.(`Reading ${token}`);
      return { summary: `Planned with ${token}.` };
    };
    parentId = await h.task('Plan with a secret', { requiresApproval: false });
    await h.rt.orchestrator.pause();
    await h.start();
    await h.rt.orchestrator.resume();
    const created = await waitFor(async () => h.eventsOf('plan_tasks_created', parentId)[0]);
    await h.rt.orchestrator.pause();
    await h.waitStatus(parentId, 'COMPLETED');
    const first = await h.rt.db.tasks.get((created.payload.tasks as Array<{ id: string }>)[0].id);
    expect(first!.description).toContain('with the Widget type (Slack token [redacted])');
    expect((await h.rt.db.taskResults.latest(parentId))!.summary).toBe('Planned with [redacted].');
    await waitFor(async () => h.eventsOf('task_progress', parentId)[0]);
    expect(JSON.stringify(h.events)).not.toContain(token);
  });
});
