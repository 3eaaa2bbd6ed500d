import type { AgentRunOutcome } from '../../../src/agents/adapter';
import type { CycleReport } from '../../../src/orchestrator/cycle';
import { overBudget } from '../../../src/orchestrator/budgets';
import { makeHarness, untilAborted, waitFor, type Harness } from './harness';

const HOUR = 3600_000;

/** An agent run that used exactly `tokens` tokens. */
const using = (tokens: number, costUsd = 0): Partial<AgentRunOutcome> => ({
  usage: { inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
  costUsd,
});

/** One whole scheduling pass of the daemon (a pass already running is waited for first). */
async function cycle(h: Harness): Promise<CycleReport> {
  for (;;) {
    const report = await h.rt.daemon()!.runCycle();
    if (report) return report;
  }
}

const warnings = (h: Harness) => h.eventsOf('budget_warning').map((e) => e.payload);

describe('budgets in the orchestrator (agent double, real git and SQLite)', () => {
  let h: Harness;
  afterEach(() => h.cleanup());

  it('posts 75, 90, 95 and 100 % once each, stops scheduling when spent, and resumes when raised', async () => {
    h = await makeHarness();
    expect(await h.rt.exec('set_budget', { project_id: 'proj', tokens: 1000 })).toMatchObject({ token_limit: 1000 });
    const spend = [760, 150, 45, 50]; // 76 %, 91 %, 95.5 %, 100.5 %
    const ids: string[] = [];
    for (const [i, tokens] of spend.entries()) {
      const id = await h.task(`Spend ${tokens}`, { priority: i + 1 });
      h.adapter.on(id, async () => using(tokens, 0.5));
      ids.push(id);
    }
    const waiting = await h.task('Waits for budget', { priority: 10 });
    await h.start();

    await waitFor(async () => warnings(h).some((w) => w.level === 100), 60_000, 'the 100 % warning');
    for (const id of ids) await h.waitStatus(id, 'COMPLETED');
    expect(warnings(h).map((w) => w.level)).toEqual([75, 90, 95, 100]);
    expect(warnings(h)[0]).toMatchObject({
      scope: 'project',
      project_id: 'proj',
      project_name: 'proj',
      measure: 'tokens',
      used: 760,
      limit: 1000,
      percent: 76,
      window_hours: 24,
    });
    expect(warnings(h)[3]).toMatchObject({ used: 1005, limit: 1000, percent: 100.5 });
    expect(String(warnings(h)[3].message)).toMatch(/^Over budget: Project 'proj's budget is spent/);
    // Back under the limit once the first run's 760 tokens leave the window.
    const [first] = await h.rt.db.em().getConnection().execute('select min(created_at) as at from token_usage');
    expect(warnings(h)[3].resets_at).toBe(new Date(Number(first.at) + 24 * HOUR + 1).toISOString());
    expect(h.eventsOf('budget_warning').every((e) => e.projectId === 'proj')).toBe(true);
    // Each task tells its own tokens and cost.
    expect(await h.rt.exec('get_task', { task_id: ids[0] })).toMatchObject({ tokens: 760, cost_usd: 0.5 });

    // Spent: passes go by, the queued task stays READY and no level is posted twice.
    for (let i = 0; i < 3; i++) expect((await cycle(h)).launched).toEqual([]);
    expect(await h.status(waiting)).toBe('READY');
    expect(h.adapter.calls.map((c) => c.taskId)).not.toContain(waiting);
    expect(warnings(h)).toHaveLength(4);
    expect(await overBudget(h.rt.db, 'proj')).toMatch(/1,005 of 1,000 tokens in the last 24 h/);
    // "Why is this task not starting" says so.
    expect(await h.rt.exec('get_task', { task_id: waiting })).toMatchObject({
      waiting_code: 'over_budget',
      waiting_reason: expect.stringMatching(/^Over budget: Project 'proj's budget is spent/),
    });
    expect(await h.rt.exec('get_budget', { project_id: 'proj' })).toMatchObject({
      over_budget: true,
      warned_levels: [75, 90, 95, 100],
      cost_used_usd: 2,
    });

    // Raised: the task starts; 1133 of 2000 tokens is under every level, so nothing is posted.
    await h.rt.exec('set_budget', { project_id: 'proj', tokens: 2000 });
    await h.waitStatus(waiting, 'COMPLETED');
    expect(warnings(h)).toHaveLength(4);
    expect(await overBudget(h.rt.db, 'proj')).toBeNull();
  });

  it('lets running tasks finish when the budget is spent, and starts nothing new', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    await h.rt.exec('set_budget', { project_id: 'proj', cost_usd: 1 });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const big = await h.task('Expensive', { priority: 1 });
    const slow = await h.task('Slow', { priority: 2 });
    const later = await h.task('Later', { priority: 3 });
    h.adapter.on(big, async () => using(10, 1.25));
    h.adapter.on(slow, async (req) => {
      await Promise.race([released, untilAborted(req)]);
      return using(10, 0.1);
    });
    await h.start();

    await h.waitStatus(big, 'COMPLETED');
    await waitFor(async () => warnings(h).some((w) => w.level === 100), 60_000, 'the 100 % warning');
    // The jump from 0 to 125 % is one notice, in dollars, the measure that is spent.
    expect(warnings(h)).toEqual([expect.objectContaining({ level: 100, measure: 'cost_usd', used: 1.25, limit: 1 })]);
    expect(await h.status(slow)).toBe('IN_PROGRESS');
    expect((await cycle(h)).launched).toEqual([]);

    release();
    await h.waitStatus(slow, 'COMPLETED');
    expect((await cycle(h)).launched).toEqual([]);
    expect(await h.status(later)).toBe('READY');
  });

  it('frees the project when its usage leaves the window, and remembers warnings across a restart', async () => {
    h = await makeHarness();
    let offset = 0;
    const now = () => new Date(Date.now() + offset);
    await h.rt.exec('set_budget', { project_id: 'proj', tokens: 1000 });
    const first = await h.task('Uses it all', { priority: 1 });
    h.adapter.on(first, async () => using(1200));
    const second = await h.task('Next', { priority: 2 });
    await h.start({ now });
    await h.waitStatus(first, 'COMPLETED');
    await waitFor(async () => warnings(h).length > 0, 60_000, 'a budget warning');

    // A new daemon reads the posted levels back instead of posting them again.
    await h.rt.stopDaemon();
    await h.start({ now });
    expect((await cycle(h)).launched).toEqual([]);
    expect(warnings(h).map((w) => w.level)).toEqual([100]);
    expect(await h.status(second)).toBe('READY');

    // A day and an hour later the usage has left the 24 h window.
    offset = 25 * HOUR;
    await h.waitStatus(second, 'COMPLETED');
    expect(warnings(h)).toHaveLength(1);
  });
});
