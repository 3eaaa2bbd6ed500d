import type { KnownBlock } from '@slack/types';
import type { HomeData } from '../home-data';
import { plural } from './cards-format';
import { bold, richLines, txt, type Line } from './text';

/** How long ago, in a few words. */
function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return 'never';
  if (seconds < 90) return `${seconds} s ago`;
  return seconds < 5400 ? `${Math.round(seconds / 60)} min ago` : `${Math.round(seconds / 3600)} h ago`;
}

/** The fleet's machines (only when `aq worker`s exist): alive or not, how busy, last heartbeat. */
export function workersSection(data: HomeData, cap: number, now = Date.now()): KnownBlock[] {
  const workers = data.workers ?? [];
  if (workers.length === 0) return [];
  const alive = workers.filter((w) => w.alive).length;
  const lines = workers
    .slice(0, cap)
    .map(
      (w): Line => [
        txt(w.alive ? '🟢 ' : '⚪ '),
        bold(w.name),
        txt(
          `  ${w.running} of ${plural(w.capacity, 'agent')} busy · heartbeat ${ago(w.lastHeartbeat, now)}${w.alive ? '' : ' · not answering'}`,
        ),
      ],
    );
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text: `*Workers* · ${alive} of ${workers.length} alive` } },
    richLines(lines),
  ];
  if (workers.length > cap) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `${workers.length - cap} more: \`/aq list_workers\`` }] });
  }
  return blocks;
}
