import { plural } from './cards-format';
import { STATE_ICONS, STATE_WORDS } from './cards-merge-train';
import type { Result } from './result-types';
import { txt, type Line } from './text';

/** A task's place in its merge train, as get_task's `merge_queue` says it. */
export type TrainPlace = NonNullable<Result<'get_task'>['merge_queue']>;

/** "HH:MM UTC" of an ISO time: a card updated in place must not say "2 min ago" for an hour. */
function clock(iso: string): string | null {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : `${at.toISOString().slice(11, 16)} UTC`;
}

/** The card line: "🚂 #2 in the merge train · ⏳ waiting since 01:42 UTC · sent back 1 time". */
export function trainPlaceLine(p: TrainPlace): Line {
  const since = clock(p.since);
  const words = [
    `🚂 #${p.place} in the merge train`,
    `${STATE_ICONS[p.state] ?? '•'} ${STATE_WORDS[p.state] ?? p.state}${since ? ` since ${since}` : ''}`,
    p.tries > 0 ? `sent back ${plural(p.tries, 'time')}` : null,
  ];
  return [txt(words.filter(Boolean).join(' · '))];
}
