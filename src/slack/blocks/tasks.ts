import type { KnownBlock } from '@slack/types';
import { actionsBlock } from './actions';
import { button, context, emoji, fallbackOf, LIMITS, statusWord, type Rendered } from './common';
import { stopTaskButton, tryWords } from './cards-format';
import { fitBlocks } from './long';
import { prChecksWords } from './merge-train-checks';
import { trainPlaceLine } from './merge-train-place';
import type { Result } from './result-types';
import { placeOfPermalink } from '../source-thread';
import { bold, link, mono, packRich, txt, type Line } from './text';
import { REQUEST_CHANGES_BUTTONS, TASK_BUTTONS } from './action-ids';

/**
 * The buttons a task in `status` offers (each runs the command of the same name). A task already
 * waiting in its merge train is approved: it offers no Approve or Request changes.
 */
export function taskButtons(taskId: string, status: string, options: { waitingToLand?: boolean } = {}): KnownBlock | null {
  const buttons = [];
  if (status === 'AWAITING_APPROVAL' && !options.waitingToLand)
    buttons.push(
      button('Approve', TASK_BUTTONS.approve, taskId, 'primary'),
      button('Request changes', REQUEST_CHANGES_BUTTONS.open, taskId),
    );
  if (status === 'IN_PROGRESS' || status === 'WAITING_INPUT') buttons.push(stopTaskButton(taskId));
  // Failed or blocked: the same row, in the same order, as on the App Home.
  const stuck = status === 'BLOCKED' || status === 'FAILED';
  if (status !== 'IN_PROGRESS' && status !== 'COMPLETED')
    buttons.push(button('Restart', TASK_BUTTONS.restart, taskId, stuck ? 'primary' : undefined));
  if (stuck) buttons.push(button('Skip', TASK_BUTTONS.skip, taskId), button('View error', TASK_BUTTONS.agentError, taskId));
  return buttons.length ? actionsBlock(buttons, `task:${taskId}`) : null;
}

/** A task's card: its title and every detail as literal rich text, the description in full, buttons. */
export function taskDetailBlocks(task: Result<'get_task'>, note?: string): Rendered {
  const { id, status } = task;
  // The facts that are set, in the thread root's order; nothing shown as "—" or "0".
  const facts = [
    statusWord(status),
    task.project_id,
    `priority ${task.priority}`,
    task.assigned_agent ? `agent ${task.assigned_agent}` : null,
    tryWords(status, `${task.retry_count} of ${task.max_retries}`),
    task.requires_approval ? 'needs approval' : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const lines: Line[] = [[txt(`${emoji(status)} `), bold(task.title), txt('  '), mono(id)], [txt(facts)]];
  const checks = prChecksWords(task.pr_checks);
  if (task.pr_url) lines.push([txt('Pull request: '), link(task.pr_url), ...(checks ? [txt(` · ${checks}`)] : [])]);
  const train = task.merge_queue ?? null;
  if (train) lines.push(trainPlaceLine(train));
  // Only a Slack permalink becomes a link: a source given by hand is shown as the text it is.
  if (task.source_url)
    lines.push([txt('Asked for in: '), placeOfPermalink(task.source_url) ? link(task.source_url) : txt(task.source_url)]);
  const blocks: KnownBlock[] = packRich(lines, LIMITS.richText);
  if (task.description)
    blocks.push(
      ...packRich(
        task.description.split('\n').map((l) => [txt(l)]),
        LIMITS.richText,
      ),
    );
  const actions = taskButtons(id, status, { waitingToLand: train !== null });
  if (actions) blocks.push(actions);
  if (note) blocks.push(context(note));
  const fitted = fitBlocks(blocks, () => JSON.stringify(task, null, 2), `${id}.json`);
  return {
    text: fallbackOf(`${emoji(status)} ${task.title} (${id}) — ${statusWord(status)}`),
    blocks: fitted.blocks,
    ...(fitted.file && { files: [fitted.file] }),
  };
}

export const TASK_PAGE_SIZE = 20;

/**
 * A page of list_tasks whose first task is the `offset`-th match (run list_tasks with that
 * offset): up to TASK_PAGE_SIZE tasks, with Prev / Next buttons carrying the filter and the
 * offset to ask list_tasks for, so every match can be reached however many there are.
 */
export function taskListBlocks(
  result: Pick<Result<'list_tasks'>, 'tasks' | 'total'>,
  filter: { project_id?: unknown; status?: unknown },
  offset = 0,
): Rendered {
  const page = result.tasks.slice(0, TASK_PAGE_SIZE);
  const blocks: KnownBlock[] = [
    ...packRich([[bold('Tasks'), txt(` — ${result.total} match${result.total === 1 ? '' : 'es'}`)]], LIMITS.richText),
  ];
  if (page.length === 0) blocks.push(context(offset > 0 ? 'No more tasks.' : 'No tasks.'));
  const lines: Line[] = page.flatMap((t, i) => {
    const line: Line = [
      txt(`${emoji(t.status)} `),
      mono(t.id),
      txt(' '),
      bold(t.title),
      txt(`\n${statusWord(t.status)} · ${t.project_id} · priority ${t.priority}${t.assigned_agent ? ` · agent ${t.assigned_agent}` : ''}`),
    ];
    return i === 0 ? [line] : [[], line];
  });
  if (lines.length) blocks.push(...packRich(lines, LIMITS.richText));
  const nav = [];
  const value = (to: number) => JSON.stringify({ ...filter, offset: to });
  if (offset > 0) nav.push(button('◀ Prev', TASK_BUTTONS.pagePrev, value(Math.max(0, offset - TASK_PAGE_SIZE))));
  if (offset + page.length < result.total) nav.push(button('Next ▶', TASK_BUTTONS.pageNext, value(offset + page.length)));
  if (nav.length) blocks.push(actionsBlock(nav));
  blocks.push(context(`Showing ${page.length ? offset + 1 : 0}–${offset + page.length} of ${result.total}`));
  return { text: `${result.total} tasks`, blocks };
}
