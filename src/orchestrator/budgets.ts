import type { Database } from '../db/database';
import { GLOBAL_BUDGET_SCOPE, type BudgetRecord, type WindowUsage } from '../db/repositories/budgets';
import type { EventLog } from './events';
import { settleAll } from '../util/settle-all';

/** Warning levels in percent of a budget; at 100 the project (or everything) takes no new tasks. */
export const BUDGET_LEVELS = [75, 90, 95, 100] as const;

export const DEFAULT_BUDGET_WINDOW_HOURS = 24;

/** A budget with its usage over its window, as of `now`. */
export interface BudgetStatus {
  budget: BudgetRecord;
  windowStart: Date;
  usedTokens: number;
  usedCostUsd: number;
  /** The highest share of a set limit used, in percent (rounded to 0.1). */
  percent: number;
  /** The highest level reached (0: none). */
  level: number;
  over: boolean;
  /**
   * Over budget: when usage falls back under every limit. Otherwise: when the window's oldest
   * usage leaves it. Null when there is no usage in the window.
   */
  resetsAt: Date | null;
}

const HOUR_MS = 3600_000;

const windowStartOf = (budget: BudgetRecord, now: Date) => new Date(now.getTime() - budget.windowHours * HOUR_MS);

/** With `exact: false` a spent budget's resetsAt is left rough (the scheduling pass needs only `over`). */
export async function budgetStatus(db: Database, budget: BudgetRecord, now: Date, exact = true): Promise<BudgetStatus> {
  return statusOf(db, budget, now, await db.budgets.usageSince(budget.projectId, windowStartOf(budget, now)), exact);
}

/** A budget's status from its window's usage, already read. */
async function statusOf(db: Database, budget: BudgetRecord, now: Date, usage: WindowUsage, exact = true): Promise<BudgetStatus> {
  const windowMs = budget.windowHours * HOUR_MS;
  const windowStart = windowStartOf(budget, now);
  const shares = [
    budget.tokenLimit !== null ? usage.tokens / budget.tokenLimit : 0,
    budget.costLimitUsd !== null ? usage.costUsd / budget.costLimitUsd : 0,
  ];
  const percent = Math.round(Math.max(...shares) * 1000) / 10;
  const over = Math.max(...shares) >= 1;
  const level = [...BUDGET_LEVELS].reverse().find((l) => Math.max(...shares) * 100 >= l) ?? 0;
  let resetsAt: Date | null = usage.oldest ? new Date(usage.oldest.getTime() + windowMs) : null;
  if (over && exact) {
    const leaving = await db.budgets.underLimitsAfter(
      budget.projectId,
      windowStart,
      { tokens: usage.tokens, costUsd: usage.costUsd },
      budget,
    );
    resetsAt = leaving ? new Date(leaving.getTime() + windowMs + 1) : resetsAt;
  }
  return { budget, windowStart, usedTokens: usage.tokens, usedCostUsd: usage.costUsd, percent, level, over, resetsAt };
}

function describeUse(s: BudgetStatus): string {
  const parts: string[] = [];
  if (s.budget.tokenLimit !== null)
    parts.push(`${s.usedTokens.toLocaleString('en-US')} of ${s.budget.tokenLimit.toLocaleString('en-US')} tokens`);
  if (s.budget.costLimitUsd !== null) parts.push(`$${s.usedCostUsd.toFixed(2)} of $${s.budget.costLimitUsd.toFixed(2)}`);
  return `${parts.join(' and ')} in the last ${s.budget.windowHours} h`;
}

const whenText = (at: Date | null) => (at ? `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'the window frees up');

/** The sentence that says why a scope takes no new tasks. */
export function overBudgetReason(s: BudgetStatus): string {
  const who = s.budget.scope === GLOBAL_BUDGET_SCOPE ? 'The global budget' : `Project '${s.budget.scope}'s budget`;
  return `Over budget: ${who} is spent (${describeUse(s)}). New tasks start again at ${whenText(s.resetsAt)}, or sooner if the budget is raised with set_budget.`;
}

/**
 * Why a project takes no new tasks because of a budget (its own or the global one), or null when
 * neither is spent. For "why is this task not starting".
 */
export async function overBudget(db: Database, projectId: string, now: Date = new Date()): Promise<string | null> {
  const budgets = (await settleAll([db.budgets.get(projectId), db.budgets.get(null)])).filter((b) => b !== null);
  return (await overBudgets(db, budgets, [projectId], now)).get(projectId) ?? null;
}

/**
 * overBudget for several projects, given the budgets (a project's, the global one) already read:
 * the usage of every window they need in one statement, whatever the number of projects.
 */
export async function overBudgets(db: Database, budgets: BudgetRecord[], projectIds: string[], now: Date): Promise<Map<string, string>> {
  const byProject = new Map(budgets.map((b) => [b.projectId, b]));
  // The project's own budget first, then the global one: the first spent is the reason.
  const applying = (projectId: string) => [byProject.get(projectId), byProject.get(null)].filter((b) => b !== undefined);
  const wanted = [...new Set(projectIds.flatMap(applying))];
  const usage = await db.budgets.usageInWindows(wanted.map((b) => ({ projectId: b.projectId, since: windowStartOf(b, now) })));
  const statuses = new Map(await settleAll(wanted.map(async (b, i) => [b, await statusOf(db, b, now, usage[i])] as const)));
  const reasons = new Map<string, string>();
  for (const projectId of projectIds) {
    const spent = applying(projectId)
      .map((b) => statuses.get(b))
      .find((s) => s?.over);
    if (spent) reasons.set(projectId, overBudgetReason(spent));
  }
  return reasons;
}

/** The budget_warning payload for a level just reached. */
function warningPayload(s: BudgetStatus, level: number, projectName: string | null): Record<string, unknown> {
  const tokenShare = s.budget.tokenLimit !== null ? s.usedTokens / s.budget.tokenLimit : -1;
  const costShare = s.budget.costLimitUsd !== null ? s.usedCostUsd / s.budget.costLimitUsd : -1;
  // `used` and `limit` are of the measure closest to its limit; both measures follow.
  const byCost = costShare > tokenShare;
  return {
    scope: s.budget.scope === GLOBAL_BUDGET_SCOPE ? 'global' : 'project',
    project_id: s.budget.projectId,
    ...(projectName !== null && { project_name: projectName }),
    level,
    percent: s.percent,
    measure: byCost ? 'cost_usd' : 'tokens',
    used: byCost ? s.usedCostUsd : s.usedTokens,
    limit: byCost ? s.budget.costLimitUsd : s.budget.tokenLimit,
    tokens_used: s.usedTokens,
    token_limit: s.budget.tokenLimit,
    cost_used_usd: s.usedCostUsd,
    cost_limit_usd: s.budget.costLimitUsd,
    window_hours: s.budget.windowHours,
    resets_at: s.resetsAt?.toISOString() ?? null,
    message:
      level >= 100
        ? overBudgetReason(s)
        : `${s.budget.scope === GLOBAL_BUDGET_SCOPE ? 'The global budget' : `Project '${s.budget.scope}'`} has used ${s.percent}% of its budget (${describeUse(s)}).`,
  };
}

/**
 * Posts the highest level a budget newly reached, once per level per window: a level posted
 * within the last window is not posted again, and the lower levels count as posted with it (one
 * notice when a single run jumps several levels). Stored, so a restart does not repeat them.
 */
async function warnOnce(db: Database, events: EventLog, s: BudgetStatus, now: Date): Promise<void> {
  if (s.level === 0) return;
  const windowStart = s.windowStart.getTime();
  const fresh = (level: number) => (s.budget.warned[String(level)] ?? -Infinity) <= windowStart;
  if (!fresh(s.level)) return;
  const next = { ...s.budget.warned };
  for (const level of BUDGET_LEVELS) if (level <= s.level && fresh(level)) next[String(level)] = now.getTime();
  if (!(await db.budgets.markWarned(s.budget.scope, s.budget.warned, next))) return;
  const project = s.budget.projectId ? await db.projects.get(s.budget.projectId) : null;
  const exact = s.over ? await budgetStatus(db, s.budget, now) : s;
  await events.emit('budget_warning', { projectId: s.budget.projectId, payload: warningPayload(exact, s.level, project?.name ?? null) });
}

export interface BudgetGate {
  /** Projects over their own budget. */
  overProjects: Set<string>;
  /** The global budget is spent: nothing new starts. */
  globalOver: boolean;
}

/**
 * Once per scheduling pass: measures every budget, posts the warnings due and says which
 * projects may not take new tasks. One small table read when no budget is set.
 */
export async function checkBudgets(db: Database, events: EventLog, now: Date): Promise<BudgetGate> {
  const gate: BudgetGate = { overProjects: new Set(), globalOver: false };
  for (const budget of await db.budgets.list()) {
    // Spent budgets stay spent for hours: when they free up is worked out only for a warning.
    const status = await budgetStatus(db, budget, now, false);
    await warnOnce(db, events, status, now);
    if (!status.over) continue;
    if (budget.projectId === null) gate.globalOver = true;
    else gate.overProjects.add(budget.projectId);
  }
  return gate;
}

/** Takes the READY work of spent scopes out of the scheduler's input (running tasks go on). */
export function holdBackSpent(readyTasks: Record<string, unknown>, gate: BudgetGate): void {
  for (const projectId of Object.keys(readyTasks)) {
    if (gate.globalOver || gate.overProjects.has(projectId)) delete readyTasks[projectId];
  }
}
