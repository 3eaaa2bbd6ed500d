import type { Rendered } from './common';
import { plural } from './cards-format';
import { item, listCard } from './cards-kit';
import type { Result } from './result-types';

/** How long ago an ISO time was, in a few words. */
function ago(iso: unknown, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(String(iso))) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

/** list_workers: each machine, alive or not, how full, and when it last answered. */
export function workersCard(r: Result<'list_workers'>): Rendered {
  const items = r.workers.map((w) =>
    item(
      w.name,
      w.host,
      [
        ['', w.alive ? 'alive' : w.stopped_at ? 'stopped' : 'not answering'],
        ['', `${w.running} of ${plural(w.capacity, 'agent')} busy`],
        ['heartbeat', ago(w.last_heartbeat)],
        ['labels', w.labels.length ? w.labels.join(', ') : null],
      ],
      w.alive ? '🟢' : '⚪',
    ),
  );
  return listCard(
    '🖥️',
    'Workers',
    items,
    'No workers: the app runs its agents itself. `npx aq worker` on another machine adds one.',
    r.total,
  );
}
