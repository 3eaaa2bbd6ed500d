import { createHash } from 'node:crypto';
import { clip, statusWord } from '../blocks/common';

/** What the context bar of a task's room shows (from get_task). */
export interface RoomFacts {
  repo: string | null;
  branch: string | null;
  prUrl: string | null;
  status: string;
  tokens: number;
  costUsd: number;
  /** The project's token budget, when it has one. */
  budgetTokens: number | null;
}

export interface ContextBarItem {
  key: string;
  label: string;
  icon?: string;
  url?: string;
  item_type?: 'info' | 'action';
}

/** The keys of the context bar's action items (a click delivers them in code_channel_action). */
export const ROOM_ACTION_APPROVE = 'aq_room_approve';
export const ROOM_ACTION_STOP = 'aq_room_stop';

/** Slack shows at most 5 context-bar items; a label is at most 128 characters. */
const MAX_ITEMS = 5;
const MAX_LABEL = 128;

/**
 * The context bar: where the work is (repository and branch), its pull request (or "no PR
 * yet"), its state with what it has spent (and the budget), and the action that fits the state:
 * Approve while it awaits approval, Stop while it runs.
 */
export function contextBar(facts: RoomFacts): ContextBarItem[] {
  const where = [facts.repo, facts.branch ?? 'no branch yet'].filter(Boolean).join(' · ');
  const pr = facts.prUrl ? (/\/(\d+)\/?$/.exec(facts.prUrl)?.[1] ?? null) : null;
  const spent = `${facts.tokens.toLocaleString('en-US')} tokens${facts.budgetTokens ? ` of ${facts.budgetTokens.toLocaleString('en-US')} budget` : ''} · $${facts.costUsd.toFixed(2)}`;
  const items: ContextBarItem[] = [
    { key: 'branch', label: where, icon: 'branch' },
    facts.prUrl
      ? { key: 'pr', label: pr ? `PR #${pr}` : 'Pull request', icon: 'link', url: facts.prUrl }
      : { key: 'pr', label: 'No PR yet', icon: 'link' },
    { key: 'state', label: `${statusWord(facts.status)} · ${spent}`, icon: 'terminal' },
  ];
  if (facts.status === 'AWAITING_APPROVAL') items.push({ key: ROOM_ACTION_APPROVE, label: 'Approve', item_type: 'action' });
  if (facts.status === 'IN_PROGRESS' || facts.status === 'PAUSED')
    items.push({ key: ROOM_ACTION_STOP, label: 'Stop', item_type: 'action' });
  return items.slice(0, MAX_ITEMS).map((item) => ({ ...item, label: clip(item.label, MAX_LABEL) }));
}

/** A hash of the bar, so an unchanged bar is not sent again. */
export function contextBarHash(items: ContextBarItem[]): string {
  return createHash('sha256').update(JSON.stringify(items)).digest('hex').slice(0, 32);
}
