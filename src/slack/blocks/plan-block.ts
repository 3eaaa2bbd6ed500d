import type { KnownBlock, PlanBlock, TaskCardBlock } from '@slack/types';
import { clip, emoji, fallbackOf, LIMITS, type Rendered } from './common';
import { bold, mono, packRich, plainContext, txt, type Line } from './text';

/** A plan as its message shows it: the task that made it and its steps (the child tasks), in order. */
export interface PlanView {
  taskId: string;
  title: string;
  steps: Array<{ id: string; title: string; status: string; skipped?: boolean }>;
}

/**
 * What we send in one plan block. Slack's reference gives the plan and task_card fields but no
 * caps, so we hold to the caps of the blocks like them: a title as long as a header's, a card's
 * title as long as a task's (200, what plans cut step titles to), and 20 cards (the parser's
 * default number of steps); past that, the first 19 and a line saying how many more.
 */
export const PLAN_BLOCK_LIMITS = { cards: 20, title: 150, cardTitle: 200 } as const;

export type CardStatus = TaskCardBlock['status'];

/** A task's status as a task card shows it. */
export function cardStatus(status: string, skipped = false): CardStatus {
  if (status === 'COMPLETED') return 'complete';
  if (skipped || status === 'FAILED' || status === 'BLOCKED') return 'error';
  if (status === 'DEFINED' || status === 'READY') return 'pending';
  return 'in_progress';
}

/** Text we did not write, as one line a plain-text field shows literally (no breaks, no control characters). */
function oneLine(text: string, limit: number): string {
  const flat = text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clip(flat || ' ', limit);
}

function heading(plan: PlanView): string {
  const n = plan.steps.length;
  return `Plan of ${plan.title} · ${n} task${n === 1 ? '' : 's'}`;
}

function progress(plan: PlanView): string {
  const done = plan.steps.filter((s) => cardStatus(s.status, s.skipped) === 'complete').length;
  return `${done} of ${plan.steps.length} done`;
}

/** The steps shown and how many are left out (the last place goes to the "and K more" line). */
function shown<T>(steps: T[], max: number): { shown: T[]; more: number } {
  if (steps.length <= max) return { shown: steps, more: 0 };
  return { shown: steps.slice(0, max - 1), more: steps.length - (max - 1) };
}

function moreLine(plan: PlanView, more: number): string {
  return `… and ${more} more: /aq get_plan task_id=${plan.taskId}`;
}

/** The plan as Slack's plan block: one task card a step, its status ticking as the step's task moves. */
export function planBlockMessage(plan: PlanView): Rendered {
  const { shown: cards, more } = shown(plan.steps, PLAN_BLOCK_LIMITS.cards);
  const block: PlanBlock = {
    type: 'plan',
    title: oneLine(heading(plan), PLAN_BLOCK_LIMITS.title),
    tasks: cards.map(
      (s): TaskCardBlock => ({
        type: 'task_card',
        task_id: s.id,
        title: oneLine(s.title, PLAN_BLOCK_LIMITS.cardTitle),
        status: cardStatus(s.status, s.skipped),
      }),
    ),
  };
  const blocks: KnownBlock[] = [block];
  if (more > 0) blocks.push(plainContext(moreLine(plan, more)));
  return { text: fallbackOf(`🗺️ ${heading(plan)}: ${progress(plan)}`), blocks };
}

/** The plan as a list of its steps (where Slack refuses the plan block), updated the same way. */
export function planListMessage(plan: PlanView): Rendered {
  const { shown: steps, more } = shown(plan.steps, PLAN_BLOCK_LIMITS.cards);
  const n = plan.steps.length;
  const lines: Line[] = [
    [
      txt(`🗺️ Plan became ${n} task${n === 1 ? '' : 's'} · `),
      bold(oneLine(plan.title, PLAN_BLOCK_LIMITS.cardTitle)),
      txt(` · ${progress(plan)}`),
    ],
    ...steps.map(
      (s): Line => [txt(`${s.skipped ? '⏭️' : emoji(s.status)} `), mono(s.id), txt(' '), txt(oneLine(s.title, PLAN_BLOCK_LIMITS.cardTitle))],
    ),
  ];
  if (more > 0) lines.push([txt(moreLine(plan, more))]);
  return { text: fallbackOf(`🗺️ ${heading(plan)}: ${progress(plan)}`), blocks: packRich(lines, LIMITS.richText) };
}
