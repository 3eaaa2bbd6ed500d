import type { Button } from '@slack/types';
import { MERGE_TRAIN_BUTTONS } from './action-ids';
import { button, type Rendered } from './common';
import { card, item } from './cards-kit';
import { prChecksWords } from './merge-train-checks';
import type { Result } from './result-types';
import { txt } from './text';

type Entry = Result<'get_merge_queue'>['entries'][number];

/** What each state of the train means to a person. */
export const STATE_WORDS: Record<string, string> = {
  waiting: 'waiting',
  updating: 'updating with the base',
  checking: 'checking',
  merging: 'merging',
  sent_back: 'sent back to its agent',
};

export const STATE_ICONS: Record<string, string> = { waiting: '⏳', updating: '🔄', checking: '🧪', merging: '🔀', sent_back: '↩️' };

/** Buttons fit in one actions block (Slack: 25 elements): two per entry for the first ones. */
const ENTRIES_WITH_BUTTONS = 12;

/** A train entry as one line: its place, title, id, state and tries. */
export function trainLine(e: Entry) {
  return item(
    `#${e.place} ${e.title ?? e.task_id}`,
    e.task_id,
    [
      ['', STATE_WORDS[e.state] ?? e.state],
      ['', prChecksWords(e.pr_checks)],
      ['tries', e.tries > 0 ? e.tries : null],
      ['last outcome:', e.state === 'sent_back' ? e.last_outcome?.split('\n')[0]?.slice(0, 200) : null],
    ],
    STATE_ICONS[e.state] ?? '•',
  );
}

/** The admin buttons for entries not landing right now: move up one place, take out. */
export function trainButtons(entries: Entry[]): Button[] {
  return entries
    .filter((e) => e.state === 'waiting' || e.state === 'sent_back')
    .slice(0, ENTRIES_WITH_BUTTONS)
    .flatMap((e) => [
      ...(e.place > 1 ? [button(`Move #${e.place} up`, MERGE_TRAIN_BUTTONS.moveUp, `${e.task_id} ${e.place - 1}`)] : []),
      button(`Take #${e.place} out`, MERGE_TRAIN_BUTTONS.takeOut, e.task_id, 'danger'),
    ]);
}

/** get_merge_queue: the tasks queued to land, in landing order, with what each is doing. */
export function mergeQueueCard(r: Result<'get_merge_queue'>): Rendered {
  const entries = Array.isArray(r.entries) ? r.entries : [];
  const more = r.next_offset !== null ? ` Showing ${entries.length} of ${r.total}; ask with offset=${r.next_offset} for the rest.` : '';
  return card({
    icon: '🚂',
    title: `Merge train · ${r.total}`,
    lines: entries.length ? entries.map(trainLine) : [[txt('Nothing is waiting to land.')]],
    buttons: trainButtons(entries),
    footer: `One landing at a time per repository, first in line first. Admins may move a task up or take it out.${more}`,
    summary: `Merge train: ${r.total} waiting to land`,
  });
}
