import { z } from 'zod';
import { BUDGET_LEVELS, budgetStatus, DEFAULT_BUDGET_WINDOW_HOURS, type BudgetStatus } from '../orchestrator/budgets';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { requireProject } from './projects';
import { boolean, decimal, integer, optional, requiredText } from './schema';

const scopeFields = {
  project_id: optional(requiredText('Project id (defaults to the active project)')),
  global: optional(boolean('The budget over everything (all projects, chat and hooks) instead of one project')),
};

/** A project id (given or active), or null for the global budget; a CommandError when unclear. */
async function resolveScope(ctx: CommandContext, args: { project_id?: string; global?: boolean }): Promise<string | null> {
  if (args.global) {
    if (args.project_id) throw new CommandError('Give either project_id or global=true, not both.');
    return null;
  }
  const projectId = args.project_id ?? ctx.session.activeProjectId;
  if (!projectId) {
    throw new CommandError('No project given and no active project set. Pass project_id, or global=true for the budget over everything.');
  }
  await requireProject(ctx, projectId);
  return projectId;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function budgetView(s: BudgetStatus) {
  const b = s.budget;
  return {
    scope: b.projectId === null ? 'global' : 'project',
    project_id: b.projectId,
    token_limit: b.tokenLimit,
    tokens_used: s.usedTokens,
    cost_limit_usd: b.costLimitUsd,
    cost_used_usd: round(s.usedCostUsd, 4),
    percent: s.percent,
    over_budget: s.over,
    window_hours: b.windowHours,
    window_start: s.windowStart.toISOString(),
    resets_at: s.resetsAt?.toISOString() ?? null,
    warned_levels: BUDGET_LEVELS.filter((l) => (b.warned[String(l)] ?? -Infinity) > s.windowStart.getTime()),
  };
}

export const setBudget = defineCommand({
  name: 'set_budget',
  group: 'projects',
  kind: 'admin',
  description:
    'Set a token and/or dollar budget over a rolling window for a project (or global=true for everything). Warnings at 75/90/95 %; at 100 % no new tasks start until the window frees up or the budget is raised. Limits not given keep their current value.',
  input: () =>
    z.object({
      ...scopeFields,
      tokens: optional(integer('Most tokens (cache included) in the window', { min: 1 })),
      cost_usd: optional(decimal('Most dollars in the window', { min: 0.01 })),
      window_hours: optional(
        integer(`Length of the rolling window in hours (default ${DEFAULT_BUDGET_WINDOW_HOURS})`, { min: 1, max: 720 }),
      ),
    }),
  async run(args, ctx) {
    const projectId = await resolveScope(ctx, args);
    const current = await ctx.db.budgets.get(projectId);
    const limits = {
      tokenLimit: args.tokens ?? current?.tokenLimit ?? null,
      costLimitUsd: args.cost_usd ?? current?.costLimitUsd ?? null,
      windowHours: args.window_hours ?? current?.windowHours ?? DEFAULT_BUDGET_WINDOW_HOURS,
    };
    if (limits.tokenLimit === null && limits.costLimitUsd === null) {
      throw new CommandError('Give tokens, cost_usd or both: a budget needs at least one limit.');
    }
    const now = new Date();
    const saved = await ctx.db.budgets.set(projectId, limits, now);
    if (projectId) await ctx.events.emit('project_updated', { projectId, payload: { fields: ['budget'] } });
    return { budget_set: projectId ?? 'global', ...budgetView(await budgetStatus(ctx.db, saved, now)) };
  },
});

export const getBudget = defineCommand({
  name: 'get_budget',
  group: 'projects',
  kind: 'read',
  description:
    "Show a project's budget (or global=true for the one over everything): used, limit, percent, window and resets_at (when spent: when new tasks may start again; otherwise when the window's oldest usage leaves it).",
  input: () => z.object(scopeFields),
  async run(args, ctx) {
    const projectId = await resolveScope(ctx, args);
    const budget = await ctx.db.budgets.get(projectId);
    if (!budget) {
      const where = projectId === null ? 'There is no global budget' : `Project '${projectId}' has no budget`;
      throw new CommandError(`${where}. Set one with set_budget.`);
    }
    return budgetView(await budgetStatus(ctx.db, budget, new Date()));
  },
});

export const clearBudget = defineCommand({
  name: 'clear_budget',
  group: 'projects',
  kind: 'admin',
  description: "Remove a project's budget (or global=true for the one over everything); its tasks are no longer held back by it.",
  input: () => z.object(scopeFields),
  async run(args, ctx) {
    const projectId = await resolveScope(ctx, args);
    if (!(await ctx.db.budgets.clear(projectId))) {
      throw new CommandError(projectId === null ? 'There is no global budget to clear.' : `Project '${projectId}' has no budget to clear.`);
    }
    if (projectId) await ctx.events.emit('project_updated', { projectId, payload: { fields: ['budget'] } });
    return { budget_cleared: projectId ?? 'global' };
  },
});

export const budgetCommands = [setBudget, getBudget, clearBudget];
