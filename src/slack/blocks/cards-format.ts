import type { Button } from '@slack/types';
import { button, clip, esc, statusWord } from './common';
import { TASK_BUTTONS } from './action-ids';
import { cutWhole } from '../../util/whole-characters';

/** statusWord, escaped for mrkdwn. */
export function statusWords(status: unknown): string {
  return esc(statusWord(status));
}

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * "try 2 of 3" once a task has failed before (`retries` is "<retry_count> of <max_retries>");
 * nothing on a first try. A failed task's count already includes the try that failed.
 */
export function tryWords(status: string, retries: string | null): string | null {
  const match = /^(\d+) of (\d+)$/.exec(retries ?? '');
  if (!match || match[1] === '0') return null;
  const done = status === 'FAILED' || status === 'BLOCKED';
  const attempt = Math.min(Number(match[1]) + (done ? 0 : 1), Number(match[2]));
  return `try ${attempt} of ${match[2]}`;
}

/** 1234567 → "1,234,567". */
export function formatNumber(n: unknown): string {
  const value = Number(n ?? 0);
  return Number.isFinite(value) ? numberFormat.format(value) : '—';
}

/** 0.0012 → "$0.0012", 0.62 → "$0.62", 12.5 → "$12.50": cents, and more digits only below a cent. */
export function formatDollars(n: unknown): string {
  const value = Number(n ?? 0);
  if (!Number.isFinite(value)) return '—';
  return `$${value !== 0 && Math.abs(value) < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** "1 task", "3 tasks". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${formatNumber(n)} ${n === 1 ? word : many}`;
}

/** Milliseconds as "45s", "12m", "3h 05m", "2d 4h". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** The first non-empty line of a text, at most `limit` characters. */
export function firstLine(text: unknown, limit = 200): string {
  const line =
    String(text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** A button that asks "are you sure?" first (Stop, Delete, Confirm of a destructive command). */
export function dangerButton(
  text: string,
  actionId: string,
  value: string,
  confirm: { title: string; text: string; confirm: string },
): Button {
  return {
    ...button(text, actionId, value, 'danger'),
    confirm: {
      title: { type: 'plain_text', text: cutWhole(confirm.title, 100) },
      // Never half of an entity (&amp;) or of a character: the text is escaped mrkdwn.
      text: { type: 'mrkdwn', text: cutWhole(confirm.text, 300).replace(/&[a-z]{0,3}$/, '') },
      confirm: { type: 'plain_text', text: cutWhole(confirm.confirm, 30) },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: 'danger',
    },
  };
}

/** Stop for a running task, with a confirm dialog naming it. */
export function stopTaskButton(taskId: string, title?: unknown): Button {
  const name = title ? `*${esc(clip(String(title), 200))}*` : `task \`${esc(taskId)}\``;
  return dangerButton('Stop', TASK_BUTTONS.stop, taskId, {
    title: 'Stop this task?',
    text: `The agent working on ${name} is stopped and its work so far is kept on the branch.`,
    confirm: 'Stop it',
  });
}
