import type { KnownBlock } from '@slack/types';
import type { EventRecord } from '../../db/repositories/events';
import { markdownToBlocks } from '../mrkdwn';
import { conversationReply } from './cards-conversation';
import { firstLine, formatDollars, formatNumber, statusWords, stopTaskButton, tryWords } from './cards-format';
import { actionsBlock } from './actions';
import { button, emoji, fallbackOf, type Rendered } from './common';
import { taskButtons } from './tasks';
import { bold, italic, link, mono, plainContext, richLines, txt, type Line } from './text';
import { answeredReply, permissionPost, questionPost, timedOutReply } from './cards-requests';
import { REQUEST_CHANGES_BUTTONS, TASK_BUTTONS } from './action-ids';
import { trainPlaceLine, type TrainPlace } from './merge-train-place';

/** What a task's thread root shows, read fresh from the task on every change. */
export interface RootFacts {
  id: string;
  title: string;
  projectId: string;
  status: string;
  agent: string | null;
  branch: string | null;
  prUrl: string | null;
  retries: string | null;
  tokens: number | null;
  costUsd: number | null;
  deleted?: boolean;
  /** Its place and state in the merge train while it waits to land. */
  train?: TrainPlace | null;
  /** Its PR/MR's checks in words while it waits (prChecksWords). */
  checks?: string | null;
}

/**
 * The root message of a task's thread, updated in place as the task moves: status, agent,
 * branch, pull request, tokens and cost; Stop only while it runs.
 */
export function threadRoot(f: RootFacts): Rendered {
  const state = f.deleted ? 'deleted' : statusWords(f.status);
  const facts = [state, f.projectId, f.agent && `agent ${f.agent}`, f.status !== 'COMPLETED' && tryWords(f.status, f.retries)]
    .filter(Boolean)
    .join(' · ');
  const lines: Line[] = [[txt(`${f.deleted ? '🗑️' : emoji(f.status)} `), bold(f.title), txt('  '), mono(f.id)], [txt(facts)]];
  if (f.branch) lines.push([txt('Branch '), mono(f.branch)]);
  if (f.prUrl) lines.push([txt('Pull request: '), link(f.prUrl), ...(f.checks && !f.deleted ? [txt(` · ${f.checks}`)] : [])]);
  if (f.train && !f.deleted) lines.push(trainPlaceLine(f.train));
  if (f.tokens || f.costUsd) {
    lines.push([
      txt([f.tokens ? `${formatNumber(f.tokens)} tokens` : null, f.costUsd ? formatDollars(f.costUsd) : null].filter(Boolean).join(' · ')),
    ]);
  }
  const blocks: KnownBlock[] = [richLines(lines)];
  if (!f.deleted && (f.status === 'IN_PROGRESS' || f.status === 'WAITING_INPUT'))
    blocks.push(actionsBlock([stopTaskButton(f.id, f.title)], `root:${f.id}`));
  return { text: fallbackOf(`${f.deleted ? '🗑️' : emoji(f.status)} ${f.title} — ${state}`), blocks };
}

type Payload = Record<string, unknown>;

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** A reply line naming the task: "✅ Completed · Build it". */
function headline(icon: string, what: string, title: string, extra?: Line): Line[] {
  return [[txt(`${icon} ${what} · `), bold(title), ...(extra ?? [])]];
}

function reply(icon: string, what: string, title: string, more: { lines?: Line[]; blocks?: KnownBlock[]; extra?: Line } = {}): Rendered {
  return {
    text: fallbackOf(`${icon} ${what}: ${title}`),
    blocks: [richLines([...headline(icon, what, title, more.extra), ...(more.lines ?? [])]), ...(more.blocks ?? [])],
  };
}

/** Progress lines from the agent, literal, as one reply. */
export function progressReply(title: string, lines: string[]): Rendered {
  const shown = lines.slice(-30);
  const text = shown.join('\n').slice(-2900);
  return {
    text: fallbackOf(`💬 ${title}: ${firstLine(shown.at(-1) ?? '', 150)}`),
    blocks: [
      richLines(text.split('\n').map((l): Line => [txt(l)])),
      ...(lines.length > shown.length ? [plainContext(`${lines.length - shown.length} earlier lines not shown`)] : []),
    ],
  };
}

/**
 * How an event reads in its task's thread (null: the root update says it all). Every reply
 * names the task, so notifications read on their own.
 */
export function threadReply(event: EventRecord, again: boolean): Rendered | null {
  const p = event.payload as Payload;
  const title = str(p.title) || str(event.taskId);
  const id = str(event.taskId);
  switch (event.type) {
    case 'task_started':
      if (!again) return null;
      return reply('🟡', 'Started again', title, {
        extra: [txt(p.agent_name ? ` by ${str(p.agent_name)}` : ''), ...(p.branch ? [txt(' on '), mono(p.branch)] : [])],
      });
    case 'task_completed': {
      const facts = [
        p.approved ? 'approved' : null,
        p.tokens ? `${formatNumber(p.tokens)} tokens` : null,
        p.cost_usd ? formatDollars(p.cost_usd) : null,
        p.note ? str(p.note) : null,
      ]
        .filter(Boolean)
        .join(' · ');
      const summary = typeof p.summary === 'string' && p.summary.trim() ? markdownToBlocks(p.summary).slice(0, 20) : [];
      return reply('✅', 'Completed', title, { lines: facts ? [[italic(facts)]] : [], blocks: summary });
    }
    case 'task_failed': {
      const lines: Line[] = [
        [txt(`Try ${str(p.retry_count ?? '?')} of ${str(p.max_retries ?? '?')}${p.will_retry ? ', it will be retried' : ''}`)],
        [bold(str(p.error_type || 'Error')), txt(`: ${firstLine(p.error, 400)}`)],
      ];
      if (p.suggested_fix) lines.push([italic(`💡 ${str(p.suggested_fix)}`)]);
      const buttons = p.will_retry ? null : taskButtons(id, 'FAILED');
      return reply('🔴', 'Failed', title, { lines, blocks: buttons ? [buttons] : [] });
    }
    case 'task_retrying':
      return reply('🔁', 'Back in the queue', title, { lines: [[txt(str(p.reason) || 'It will be retried.')]] });
    case 'task_blocked': {
      const buttons = taskButtons(id, 'BLOCKED');
      return reply('⛔', 'Blocked', title, { lines: p.reason ? [[txt(str(p.reason))]] : [], blocks: buttons ? [buttons] : [] });
    }
    case 'task_awaiting_approval': {
      const lines: Line[] = [];
      if (p.pr_url) lines.push([txt('Pull request: '), link(str(p.pr_url))]);
      if (p.note) lines.push([txt(str(p.note))]);
      return reply('⏳', 'Awaiting approval', title, {
        lines,
        blocks: [
          actionsBlock([
            button('Approve', TASK_BUTTONS.approve, id, 'primary'),
            button('Request changes', REQUEST_CHANGES_BUTTONS.open, id),
            button('Restart', TASK_BUTTONS.restart, id),
          ]),
        ],
      });
    }
    case 'task_paused':
      return reply('⏸️', 'Paused', title, {
        lines: [[txt(`${str(p.reason)}${p.resume_after ? ` — resumes at ${str(p.resume_after)}` : ''}`)]],
      });
    case 'task_resumed':
      return reply('▶️', 'Resumed', title);
    case 'task_failover':
      return reply('🔀', 'Taken by another backend', title, { lines: [[txt(str(p.reason))]] });
    case 'task_stopped':
      return reply('⏹️', 'Stopped', title, { lines: [[txt('Restart or skip it when you are ready.')]] });
    case 'task_restarted':
      return reply('🔁', 'Restarted', title, { lines: [[txt('Back in the queue with its retries reset.')]] });
    case 'task_skipped':
      return reply('⏭️', 'Skipped', title, { lines: [[txt('Counted as done; tasks waiting only on it can run.')]] });
    case 'task_status_forced':
      return reply('🛠️', 'Status set by hand', title, { lines: [[txt(`${statusWords(p.old_status)} → ${statusWords(p.new_status)}`)]] });
    case 'merge_failed':
      return reply('⚠️', 'Merge failed', title, { lines: [[txt(firstLine(p.message, 400))]] });
    case 'chain_stuck': {
      const stuck = Array.isArray(p.stuck_downstream) ? (p.stuck_downstream as Array<{ id: string; title: string }>) : [];
      return reply('⛓️', `${stuck.length} waiting behind`, title, {
        lines: stuck.slice(0, 20).map((s): Line => [txt('• '), mono(s.id), txt(' '), txt(s.title)]),
      });
    }
    case 'plan_tasks_created': {
      const tasks = Array.isArray(p.tasks) ? (p.tasks as Array<{ id: string; title: string }>) : [];
      const lines = tasks.slice(0, 20).map((t): Line => [txt('• '), mono(t.id), txt(' '), txt(t.title)]);
      if (tasks.length > 20) lines.push([txt(`… and ${tasks.length - 20} more: /aq list_tasks project_id=${str(event.projectId)}`)]);
      return reply('🗺️', `Plan became ${tasks.length} task${tasks.length === 1 ? '' : 's'}`, title, { lines });
    }
    case 'task_message_delivered':
    case 'task_follow_up_queued':
      return conversationReply(event);
    case 'agent_request_created':
      return p.kind === 'question' ? questionPost(p) : permissionPost(p);
    case 'agent_request_answered':
      return answeredReply(p);
    case 'agent_request_timed_out':
      return timedOutReply(p);
    default:
      return null;
  }
}

/** Events that move a task, after which its root is redrawn. */
export const ROOT_CHANGING = new Set([
  'task_started',
  'task_completed',
  'task_failed',
  'task_retrying',
  'task_blocked',
  'task_awaiting_approval',
  'task_paused',
  'task_resumed',
  'task_stopped',
  'task_restarted',
  'task_skipped',
  'task_status_forced',
  'task_updated',
  'task_deleted',
  'pr_created',
  'landing_queued',
  'landing_started',
  'landing_sent_back',
  'landed',
  'task_follow_up_queued',
  'agent_request_created',
  'agent_request_answered',
  'agent_request_timed_out',
]);

/** Outcomes worth a thread even when the task never started (a root is opened for them). */
export const OPENS_THREAD = new Set([
  'task_started',
  'task_completed',
  'task_failed',
  'task_blocked',
  'task_awaiting_approval',
  'chain_stuck',
  'merge_failed',
  'plan_tasks_created',
  'agent_request_created',
  'task_failover',
]);
