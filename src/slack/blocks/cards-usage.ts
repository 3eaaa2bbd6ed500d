import type { Rendered } from './common';
import { formatDollars, formatNumber, plural } from './cards-format';
import { card, item } from './cards-kit';
import { txt, type Line } from './text';
import type { AnyShape, CommandAndResult, Result } from './result-types';

const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));

type UsageRow = Result<'get_token_usage'>['breakdown'][number];

/** Whom a breakdown row counts: its task, else its project, else its agent (a task's rows are by agent). */
function usageRowName(row: UsageRow): string {
  if ('task_id' in row && row.task_id) return row.task_id;
  if ('project_id' in row && row.project_id) return row.project_id;
  return ('agent_id' in row && row.agent_id) || 'unattributed';
}

/** get_token_usage: the total, then the breakdown largest first, numbers formatted. */
export function tokenUsageCard(result: Result<'get_token_usage'>): Rendered {
  const r: AnyShape<Result<'get_token_usage'>> = result;
  const scope = r.task_id ? `task ${s(r.task_id)}` : r.project_id ? `project ${s(r.project_id)}` : 'all projects';
  const breakdown = r.breakdown ?? [];
  const total = Number(r.total ?? 0);
  const lines: Line[] = [[txt(`${formatNumber(total)} tokens in all`)]];
  for (const row of breakdown.slice(0, 40)) {
    const name = usageRowName(row);
    const share = total > 0 ? ` · ${Math.round((Number(row.tokens) / total) * 100)}%` : '';
    lines.push(
      item(name, undefined, [
        ['', `${formatNumber(row.tokens)} tokens${share}`],
        ['agent', !r.task_id && 'agent_id' in row ? row.agent_id : null],
      ]),
    );
  }
  const more = Number(r.breakdown_total ?? breakdown.length) - Math.min(breakdown.length, 40);
  return card({
    icon: '🔢',
    title: 'Token usage',
    subject: scope,
    lines,
    ...(more > 0 && {
      footer: `${plural(more, 'more row')}${r.next_offset !== undefined && r.next_offset !== null ? `: ask again with \`offset=${s(r.next_offset)}\`` : ''}.`,
    }),
    summary: `Token usage for ${scope}: ${formatNumber(total)} tokens`,
  });
}

/** get_recent_events: newest first, one line each. */
export function eventsCard(r: Result<'get_recent_events'>): Rendered {
  const events = r.events;
  const lines = events.slice(0, 50).map((e): Line => {
    const p = e.payload;
    const about = p.title ?? p.name ?? p.hook_name ?? e.task_id ?? e.project_id ?? '';
    return [txt(`${s(e.created_at).replace('T', ' ').slice(5, 16)}  ${s(e.type).replace(/_/g, ' ')}  `), txt(s(about))];
  });
  return card({
    icon: '🗒️',
    title: 'Recent events',
    lines: lines.length ? lines : [[txt('Nothing has happened yet.')]],
    ...(events.length > 50 && { footer: `${events.length - 50} older events not shown.` }),
  });
}

export const BUDGET_COMMANDS = ['set_budget', 'get_budget', 'clear_budget'] as const;
type BudgetCommands = (typeof BUDGET_COMMANDS)[number];

/** set_budget / get_budget / clear_budget: used against the limit, in words and numbers. */
export function budgetCard(...[command, r]: CommandAndResult<BudgetCommands>): Rendered {
  if (command === 'clear_budget') {
    // clear_budget names what it cleared: a project's id, or 'global' for the budget over everything.
    const cleared = r.budget_cleared === 'global' ? 'everything' : `project ${s(r.budget_cleared)}`;
    return card({ icon: '🧾', title: 'Budget cleared', subject: cleared });
  }
  const scope = r.project_id ? `project ${s(r.project_id)}` : 'everything';
  const lines: Line[] = [];
  if (r.token_limit !== null && r.token_limit !== undefined)
    lines.push([txt(`${formatNumber(r.tokens_used)} of ${formatNumber(r.token_limit)} tokens`)]);
  if (r.cost_limit_usd !== null && r.cost_limit_usd !== undefined)
    lines.push([txt(`${formatDollars(r.cost_used_usd)} of ${formatDollars(r.cost_limit_usd)}`)]);
  lines.push([
    txt(
      `${s(r.percent ?? 0)}% used over ${plural(Number(r.window_hours ?? 0), 'hour')}${r.resets_at ? ` · resets ${s(r.resets_at).replace('T', ' ').slice(0, 16)} UTC` : ''}`,
    ),
  ]);
  return card({
    icon: r.over_budget ? '🛑' : '🧾',
    title: r.over_budget ? 'Budget spent: no new tasks start' : command === 'set_budget' ? 'Budget set' : 'Budget',
    subject: scope,
    lines,
  });
}

/** message_task: where the message went (the running agent, or the task's next run). */
export function taskMessageCard(r: Result<'message_task'>): Rendered {
  if (r.delivery === 'answer') {
    return card({
      icon: '💬',
      title: 'Answered the agent’s question',
      subject: r.title ?? r.task_id,
      lines: [[txt(r.status === 'WAITING_INPUT' ? 'Other questions are still open.' : 'The agent goes on with your answer.')]],
    });
  }
  if (r.delivery === 'after_landing') {
    return card({
      icon: '🚂',
      title: 'Queued for after the landing',
      subject: r.title ?? r.task_id,
      lines: [[txt(r.landing)]],
    });
  }
  const live = r.delivery === 'live';
  return card({
    icon: '💬',
    title: live ? 'Sent to the running agent' : 'Queued for the next run',
    subject: r.title ?? r.task_id,
    lines: [
      [
        txt(
          live
            ? 'The agent reads it while it works.'
            : `The task is back in the queue${r.resumes_session ? ' and resumes its session' : ''}.`,
        ),
      ],
    ],
  });
}
