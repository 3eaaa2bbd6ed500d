import type { KnownBlock } from '@slack/types';
import { button, capBlocks, context, emoji, esc, section, truncate, type Rendered } from './common';

/** The buttons a task in `status` offers (each runs the command of the same name). */
export function taskButtons(taskId: string, status: string): KnownBlock | null {
  const buttons = [];
  if (status === 'AWAITING_APPROVAL') buttons.push(button('Approve', 'aq_approve_task', taskId, 'primary'));
  if (status === 'IN_PROGRESS') buttons.push(button('Stop', 'aq_stop_task', taskId, 'danger'));
  if (status === 'BLOCKED' || status === 'FAILED' || status === 'AWAITING_APPROVAL') buttons.push(button('Skip', 'aq_skip_task', taskId));
  if (status !== 'IN_PROGRESS' && status !== 'COMPLETED') buttons.push(button('Restart', 'aq_restart_task', taskId));
  if (status === 'BLOCKED' || status === 'FAILED') buttons.push(button('View error', 'aq_get_agent_error', taskId));
  return buttons.length ? { type: 'actions', block_id: `task:${taskId}`, elements: buttons } : null;
}

export function taskDetailBlocks(task: Record<string, unknown>, note?: string): Rendered {
  const id = String(task.id);
  const status = String(task.status);
  const blocks: KnownBlock[] = [
    section(`${emoji(status)} *${esc(task.title)}*  \`${esc(id)}\``),
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Status*\n${status}` },
        { type: 'mrkdwn', text: `*Project*\n${esc(task.project_id)}` },
        { type: 'mrkdwn', text: `*Priority*\n${esc(task.priority)}` },
        { type: 'mrkdwn', text: `*Agent*\n${task.assigned_agent ? esc(task.assigned_agent) : '—'}` },
        { type: 'mrkdwn', text: `*Retries*\n${esc(task.retry_count)} / ${esc(task.max_retries)}` },
        { type: 'mrkdwn', text: `*Approval*\n${task.requires_approval ? 'required' : 'not required'}` },
      ],
    },
  ];
  if (typeof task.description === 'string' && task.description) blocks.push(section(truncate(esc(task.description), 1500)));
  if (task.pr_url) blocks.push(section(`Pull request: <${String(task.pr_url)}>`));
  const actions = taskButtons(id, status);
  if (actions) blocks.push(actions);
  if (note) blocks.push(context(note));
  return { text: `${emoji(status)} ${String(task.title)} (${id}) — ${status}`, blocks };
}

export const TASK_PAGE_SIZE = 20;

/** A page of list_tasks with Prev / Next buttons that carry the filter and offset. */
export function taskListBlocks(
  result: { tasks: Array<Record<string, unknown>>; total: number },
  filter: Record<string, unknown>,
  offset = 0,
): Rendered {
  const page = result.tasks.slice(offset, offset + TASK_PAGE_SIZE);
  const shown = result.tasks.length;
  const blocks: KnownBlock[] = [
    section(`*Tasks* — ${result.total} match${result.total === 1 ? '' : 'es'}${result.total > shown ? ` (first ${shown} listed)` : ''}`),
  ];
  if (page.length === 0) blocks.push(context('No tasks.'));
  for (const t of page) {
    blocks.push(section(`${emoji(String(t.status))} \`${esc(t.id)}\` *${esc(t.title)}*\n${esc(t.status)} · priority ${esc(t.priority)} · ${esc(t.project_id)}${t.assigned_agent ? ` · ${esc(t.assigned_agent)}` : ''}`));
  }
  const nav = [];
  const value = (to: number) => JSON.stringify({ ...filter, offset: to });
  if (offset > 0) nav.push(button('◀ Prev', 'aq_tasks_page_prev', value(Math.max(0, offset - TASK_PAGE_SIZE))));
  if (offset + TASK_PAGE_SIZE < shown) nav.push(button('Next ▶', 'aq_tasks_page_next', value(offset + TASK_PAGE_SIZE)));
  if (nav.length) blocks.push({ type: 'actions', elements: nav });
  blocks.push(context(`Showing ${page.length ? offset + 1 : 0}–${offset + page.length} of ${shown}`));
  return { text: `${result.total} tasks`, blocks: capBlocks(blocks) };
}
