// @database-dependent: budgets are sums and limits kept in SQL.
import { overBudget } from '../../../src/orchestrator/budgets';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

const HOUR = 3600_000;

/** A usage row at a chosen moment (the repository stamps rows with the current time). */
async function usageAt(rt: TestRuntime, at: number, projectId: string | null, tokens: number, costUsd = 0): Promise<void> {
  await rt.db
    .em()
    .getConnection()
    .execute(
      "insert into token_usage (project_id, task_id, agent_id, source, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, tokens, cost_usd, created_at) values (?, null, null, 'agent', ?, 0, 0, 0, ?, ?, ?)",
      [projectId, tokens, tokens, costUsd, at],
    );
}

describe('budget commands', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('create_project', { name: 'beta' });
  });
  afterEach(() => rt.cleanup());

  it('sets a project budget and shows its use over the window only', async () => {
    const now = Date.now();
    await usageAt(rt, now - 30 * HOUR, 'alpha', 5000, 5); // outside the default 24 h window
    await usageAt(rt, now - 3 * HOUR, 'alpha', 300, 0.25);
    await usageAt(rt, now - 1 * HOUR, 'alpha', 200, 0.5);
    await usageAt(rt, now - 1 * HOUR, 'beta', 900, 9);

    const set = await rt.exec('set_budget', { project_id: 'alpha', tokens: 1000 });
    expect(set).toMatchObject({
      budget_set: 'alpha',
      scope: 'project',
      project_id: 'alpha',
      token_limit: 1000,
      cost_limit_usd: null,
      window_hours: 24,
    });

    const got = await rt.exec('get_budget', { project_id: 'alpha' });
    expect(got).toMatchObject({ tokens_used: 500, cost_used_usd: 0.75, percent: 50, over_budget: false, warned_levels: [] });
    // Not spent: resets_at is when the oldest usage in the window leaves it.
    expect(got.resets_at).toBe(new Date(now - 3 * HOUR + 24 * HOUR).toISOString());
    expect(await overBudget(rt.db, 'alpha')).toBeNull();
  });

  it('keeps limits not given, and a dollar limit can be what is spent', async () => {
    await rt.exec('set_budget', { project_id: 'alpha', tokens: 1000, window_hours: 6 });
    const both = await rt.exec('set_budget', { project_id: 'alpha', cost_usd: 1 });
    expect(both).toMatchObject({ token_limit: 1000, cost_limit_usd: 1, window_hours: 6 });

    const now = Date.now();
    await usageAt(rt, now - 2 * HOUR, 'alpha', 10, 0.7);
    await usageAt(rt, now - 1 * HOUR, 'alpha', 10, 0.5);
    const got = await rt.exec('get_budget', { project_id: 'alpha' });
    expect(got).toMatchObject({ tokens_used: 20, cost_used_usd: 1.2, percent: 120, over_budget: true });
    // Spent: new tasks may start once the first row leaves the 6 h window ($0.5 < $1 then).
    expect(Date.parse(String(got.resets_at))).toBe(now - 2 * HOUR + 6 * HOUR + 1);
    expect(await overBudget(rt.db, 'alpha')).toMatch(
      /^Over budget: Project 'alpha's budget is spent \(20 of 1,000 tokens and \$1\.20 of \$1\.00 in the last 6 h\)\. New tasks start again at .+ UTC/,
    );
    expect(await overBudget(rt.db, 'beta')).toBeNull();
  });

  it('a global budget counts every project and usage outside projects, and holds back every project', async () => {
    const now = Date.now();
    await usageAt(rt, now - HOUR, 'alpha', 40);
    await usageAt(rt, now - HOUR, null, 70); // chat, outside any project
    expect(await rt.exec('set_budget', { global: true, tokens: 100 })).toMatchObject({
      budget_set: 'global',
      scope: 'global',
      project_id: null,
      tokens_used: 110,
      over_budget: true,
    });
    expect(await overBudget(rt.db, 'beta')).toMatch(/^Over budget: The global budget is spent/);

    await rt.exec('set_budget', { project_id: 'beta', tokens: 50 });
    expect(await rt.exec('get_budget', { global: true })).toMatchObject({ scope: 'global', tokens_used: 110 });
    expect(await rt.exec('get_budget', { project_id: 'beta' })).toMatchObject({ scope: 'project', tokens_used: 0, over_budget: false });
    expect(await rt.exec('clear_budget', { global: true })).toEqual({ budget_cleared: 'global' });
    expect(await overBudget(rt.db, 'beta')).toBeNull();
  });

  it('defaults to the active project and goes with a deleted project', async () => {
    await rt.exec('set_active_project', { project_id: 'beta' });
    expect(await rt.exec('set_budget', { tokens: 10 })).toMatchObject({ budget_set: 'beta' });
    expect(await rt.exec('get_budget')).toMatchObject({ project_id: 'beta', token_limit: 10 });
    await rt.exec('delete_project', { project_id: 'beta' });
    expect(await rt.db.budgets.get('beta')).toBeNull();
  });

  it('says what is wrong with bad input', async () => {
    const error = async (name: string, args: Record<string, unknown>) => String((await rt.exec(name, args)).error);
    expect(await error('set_budget', { tokens: 10 })).toBe(
      'No project given and no active project set. Pass project_id, or global=true for the budget over everything.',
    );
    expect(await error('set_budget', { project_id: 'nope', tokens: 10 })).toBe("Project 'nope' not found.");
    expect(await error('set_budget', { project_id: 'alpha', global: true, tokens: 10 })).toBe(
      'Give either project_id or global=true, not both.',
    );
    expect(await error('set_budget', { project_id: 'alpha' })).toBe('Give tokens, cost_usd or both: a budget needs at least one limit.');
    expect(await error('set_budget', { project_id: 'alpha', tokens: 0 })).toMatch(/tokens/);
    expect(await error('set_budget', { project_id: 'alpha', tokens: 'lots' })).toMatch(/tokens/);
    expect(await error('set_budget', { project_id: 'alpha', cost_usd: -1 })).toMatch(/cost_usd/);
    expect(await error('set_budget', { project_id: 'alpha', tokens: 5, window_hours: 0 })).toMatch(/window_hours/);
    expect(await error('set_budget', { project_id: 'alpha', tokens: 5, window_hours: 1000 })).toMatch(/window_hours/);
    expect(await error('get_budget', { project_id: 'alpha' })).toBe("Project 'alpha' has no budget. Set one with set_budget.");
    expect(await error('get_budget', { global: true })).toBe('There is no global budget. Set one with set_budget.');
    expect(await error('clear_budget', { project_id: 'alpha' })).toBe("Project 'alpha' has no budget to clear.");
    expect(await rt.db.budgets.list()).toEqual([]);
  });

  it('needs an admin from Slack to set or clear a budget, and confirmation from the model', async () => {
    expect(rt.handler.command('set_budget')).toMatchObject({ kind: 'admin' });
    expect(rt.handler.command('clear_budget')).toMatchObject({ kind: 'admin' });
    expect(rt.handler.command('get_budget')).toMatchObject({ kind: 'read' });
  });
});
