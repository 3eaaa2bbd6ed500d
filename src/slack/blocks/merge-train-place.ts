import { plural } from './cards-format';
import { STATE_ICONS, STATE_WORDS } from './cards-merge-train';
import { txt, type Line } from './text';

/** A task's place in its merge train, as get_task's `merge_queue` says it. */
export interface TrainPlace {
  place: number;
  state: string;
  /** ISO time it entered its current state. */
  since: string;
  tries: number;
}

/** get_task's `merge_queue` read defensively (a result is untyped JSON by the time it is drawn): null when absent. */
export function trainPlaceOf(value: unknown): TrainPlace | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const place = Number(v.place);
  if (!Number.isInteger(place) || place < 1 || typeof v.state !== 'string') return null;
  return { place, state: v.state, since: typeof v.since === 'string' ? v.since : '', tries: Number(v.tries) || 0 };
}

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
