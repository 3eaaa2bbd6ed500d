// @database-dependent: why a task waits is read from scheduling queries.
import path from 'node:path';
import { cloneWorkspace } from '../../support/git-fixtures';
import { countStatements } from '../../support/statement-counter';
import { makeHarness, untilAborted, type Harness } from './harness';
import { PROVISIONING_FAILURES_KEY } from '../../../src/orchestrator/workspace-provisioning';

jest.setTimeout(90_000);

type Waiting = { status: string; waiting_code?: string; waiting_reason?: string; waiting_until?: string };

/**
 * Every reason a task that could run is not running, as get_task (waiting_*) and get_status
 * (not_starting, and on each ready_to_work row) tell it, produced by the real daemon on real
 * SQLite and git. no_agent, no_workspace and workspace_failed are in zero-setup.test.ts.
 */
describe('why a READY task is not starting', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  const task = (id: string) => h.rt.exec('get_task', { task_id: id }) as Promise<Waiting>;
  const notStarting = async () => (await h.rt.exec('get_status')).not_starting as Array<Record<string, unknown>>;
  const cycle = () => h.rt.daemon()!.runCycle();
  /**
   * Asks get_task and, for a READY task held by its project's state, get_status: both give `code`
   * (a pinned workspace is the task's own, so get_status does not list it).
   */
  async function expectWaiting(id: string, code: string, reason: RegExp): Promise<Waiting> {
    const t = await task(id);
    expect(t).toMatchObject({
      status: expect.stringMatching(/^(READY|DEFINED|PAUSED)$/),
      waiting_code: code,
      waiting_reason: expect.stringMatching(reason),
    });
    if (t.status === 'READY' && code !== 'workspace_pinned') {
      expect(await notStarting()).toContainEqual(expect.objectContaining({ project_id: 'proj', code, reason: t.waiting_reason }));
      const ready = ((await h.rt.exec('get_status')).tasks as { ready_to_work: Array<Record<string, unknown>> }).ready_to_work;
      expect(ready.find((r) => r.id === id)).toMatchObject({ waiting_code: code, waiting_reason: t.waiting_reason });
    }
    return t;
  }

  it('no daemon, scheduling paused, project paused, over budget: each said, and the task runs once it is lifted', async () => {
    h = await makeHarness();
    const id = await h.task('Patient');
    await expectWaiting(id, 'no_daemon', /^No daemon is running/);

    await h.rt.exec('orchestrator_control', { action: 'pause' });
    await h.start();
    await cycle();
    await expectWaiting(id, 'scheduling_paused', /orchestrator_control action=resume/);

    await h.rt.exec('pause_project', { project_id: 'proj' });
    await h.rt.exec('orchestrator_control', { action: 'resume' });
    await cycle();
    await expectWaiting(id, 'project_paused', /^Project 'proj' is paused: resume it with resume_project\.$/);

    await h.rt.db.projects.update('proj', { budgetLimit: 100 });
    await h.rt.db.tokenUsage.record({ projectId: 'proj', source: 'agent', inputTokens: 150, outputTokens: 0 });
    await h.rt.exec('resume_project', { project_id: 'proj' });
    await cycle();
    await expectWaiting(id, 'over_budget', /^Project 'proj' used 150 of its 100 token budget/);
    expect(h.adapter.calls).toHaveLength(0);

    await h.rt.db.projects.update('proj', { budgetLimit: null });
    h.rt.daemon()!.kick();
    await h.waitStatus(id, 'COMPLETED');
    expect(await notStarting()).toEqual([]);
  });

  it('a pinned workspace, every workspace, every agent and every slot busy', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    h.adapter.fallback = async (req) => {
      if (!req.prompt.includes('Holder')) return {};
      await untilAborted(req);
      return { status: 'aborted' };
    };
    await h.start();
    const one = await h.task('Holder one', { priority: 1 });
    await h.waitStatus(one, 'IN_PROGRESS');
    const held = (await h.rt.db.tasks.get(one))!.workspaceId!;
    const pinned = await h.task('Continues there', { preferredWorkspaceId: held, priority: 50 });
    await cycle();
    await expectWaiting(pinned, 'workspace_pinned', new RegExp(`^It continues in workspace '${held}', which task ${one} is using`));

    const two = await h.task('Holder two', { priority: 1 });
    await h.waitStatus(two, 'IN_PROGRESS');
    await expectWaiting(pinned, 'workspaces_busy', /^Every workspace of project 'proj' is in use/);

    const dir = await cloneWorkspace(h.origin, path.join(h.rt.home, 'ws-extra'));
    await h.rt.db.workspaces.create({ id: 'ws-extra', projectId: 'proj', name: 'ws-extra', path: dir, sourceType: 'clone', repoId: null });
    const plain = await h.task('Plain');
    await cycle();
    await expectWaiting(plain, 'agents_busy', /^Every agent is busy/);

    await h.rt.exec('edit_project', { project_id: 'proj', max_concurrent_agents: 2 });
    await expectWaiting(plain, 'slots_busy', /^All 2 agent slot\(s\) of project 'proj' are busy/);

    await h.rt.exec('stop_task', { task_id: one });
    await h.rt.exec('stop_task', { task_id: two });
    await h.waitStatus(pinned, 'COMPLETED');
    await h.waitStatus(plain, 'COMPLETED');
    expect(h.adapter.calls.find((c) => c.taskId === pinned)!.cwd).toBe((await h.rt.db.workspaces.get(held))!.path);
  });

  it('a usage limit with a reset holds every launch until then, and says until when', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    h.adapter.fallback = async (req) =>
      req.prompt.includes('Limited')
        ? { status: 'rate_limited', errorMessage: "You've hit your limit · resets 3pm (UTC)", summary: '' }
        : {};
    await h.start();
    const limited = await h.task('Limited');
    await h.waitStatus(limited, 'PAUSED');
    const resume = (await h.rt.db.tasks.get(limited))!.resumeAfter!.toISOString();
    const paused = await expectWaiting(limited, 'waiting_quota', /hit your limit/);
    expect(paused.waiting_until).toBe(resume);

    const next = await h.task('Next');
    for (let i = 0; i < 3; i++) await cycle();
    const waiting = await expectWaiting(
      next,
      'waiting_quota',
      new RegExp(`^The agents' usage limit is reached on claude-code; new tasks start after it resets at ${resume}`),
    );
    expect(waiting.waiting_until).toBe(resume);
    expect(await notStarting()).toEqual([expect.objectContaining({ code: 'waiting_quota', until: resume })]);
    expect(h.adapter.calls.map((c) => c.taskId)).toEqual([limited]);

    // A plain 429 without a reset time holds nothing.
    await h.rt.db.tasks.update(limited, { pauseReason: 'Rate or usage limit: 429' });
    h.rt.daemon()!.kick();
    await h.waitStatus(next, 'COMPLETED');
  });

  it('a task waiting on others names them, and starts when they are done', async () => {
    h = await makeHarness();
    const gate = await h.task('Gate');
    h.adapter.on(gate, async (req) => {
      await untilAborted(req);
      return { status: 'aborted' as const };
    });
    const after = await h.task('After', {}, [gate]);
    await expectWaiting(after, 'waiting_dependencies', new RegExp(`^Waiting on 1 unfinished task\\(s\\): ${gate} \\(READY\\)\\.$`));
    await h.start();
    await h.waitStatus(gate, 'IN_PROGRESS');
    await expectWaiting(after, 'waiting_dependencies', new RegExp(`${gate} \\(IN_PROGRESS\\)`));
    await h.rt.exec('stop_task', { task_id: gate });
    await h.rt.exec('skip_task', { task_id: gate });
    await h.waitStatus(after, 'COMPLETED');
    expect((await task(after)).waiting_code).toBeUndefined();
  });

  it('tells each of many projects its reason in as many statements as for a few (budgets, their usage, repositories)', async () => {
    h = await makeHarness();
    // A daemon in another process holds the lease: the reasons are worked out, not "no daemon".
    expect(await h.rt.db.scheduling.acquireLease('daemon-elsewhere', new Date(), 60_000)).toBe(true);
    const addProjects = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        await h.rt.exec('create_project', { name: `p${i}` });
        await h.rt.exec('set_budget', { project_id: `p${i}`, tokens: 100 });
        await h.rt.exec('create_task', { project_id: `p${i}`, title: `Task of p${i}`, description: 'd' });
      }
    };
    await addProjects(0, 3);
    // Windows of two lengths and the global budget: every sum is still one statement.
    await h.rt.exec('set_budget', { project_id: 'p2', tokens: 100, window_hours: 6 });
    await h.rt.exec('set_budget', { global: true, tokens: 1_000_000 });
    await h.rt.db.tokenUsage.record({ projectId: 'p1', source: 'agent', inputTokens: 150, outputTokens: 0 });
    await h.rt.db.tokenUsage.record({ projectId: 'p2', source: 'agent', inputTokens: 120, outputTokens: 0 });
    await h.rt.db.tokenUsage.record({ projectId: 'p0', source: 'agent', inputTokens: 60, outputTokens: 0 });
    const counter = countStatements(h.rt.db);
    const reasons = async () => {
      const before = counter.count;
      const rows = await notStarting();
      return { rows, statements: counter.count - before };
    };

    const few = await reasons();
    expect(few.rows).toContainEqual(
      expect.objectContaining({
        project_id: 'p1',
        code: 'over_budget',
        reason: expect.stringMatching(/^Over budget: Project 'p1's budget is spent \(150 of 100 tokens/),
      }),
    );
    expect(few.rows).toContainEqual(
      expect.objectContaining({
        project_id: 'p2',
        code: 'over_budget',
        reason: expect.stringMatching(/\(120 of 100 tokens in the last 6 h\)/),
      }),
    );
    expect(few.rows).toContainEqual(expect.objectContaining({ project_id: 'p0', code: 'no_workspace' }));

    await addProjects(3, 12);
    // A failed provisioning, as the daemon stores it: read in the same statement as the rest.
    await h.rt.db.state.set(PROVISIONING_FAILURES_KEY, { p5: { error: 'Could not clone "x"', source: 'x', at: 1 } });
    const many = await reasons();
    counter.stop();
    expect(many.rows.filter((r) => r.code === 'over_budget').map((r) => r.project_id)).toEqual(['p1', 'p2']);
    expect(many.rows.filter((r) => r.code === 'workspace_failed')).toEqual([
      expect.objectContaining({ project_id: 'p5', reason: expect.stringContaining('failed: Could not clone "x".') }),
    ]);
    expect(many.rows.filter((r) => r.code === 'no_workspace')).toHaveLength(9);
    expect(many.statements).toBe(few.statements);
  });
});
