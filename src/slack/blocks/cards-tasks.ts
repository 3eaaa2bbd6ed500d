import type { Rendered } from './common';
import { button } from './common';
import { firstLine, formatDollars, formatNumber, plural, statusWords } from './cards-format';
import { card, countOf, facts, item, updatedCard } from './cards-kit';
import { bold, italic, md, mono, txt, type Line } from './text';
import { TASK_BUTTONS } from './action-ids';
import type { AnyShape, CommandAndResult, Result } from './result-types';

const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const tasksOf = (v: unknown) => (Array.isArray(v) ? (v as Array<{ id: string; title: string; status?: string }>) : []);

/** create_task: the queued task as a card (where it waits, what it needs). */
export function createdTaskCard(r: Result<'create_task'>): Rendered {
  const deps = Array.isArray(r.depends_on) ? r.depends_on.map(String) : [];
  const waiting = r.status === 'DEFINED';
  const lines: Line[] = [
    [mono(r.created), txt(` · ${s(r.project_id)} · ${waiting ? `waits for ${plural(deps.length, 'task')}` : 'ready to start'}`)],
  ];
  if (deps.length) lines.push([txt('Depends on '), ...deps.flatMap((id, i) => [txt(i ? ', ' : ''), mono(id)])]);
  if (r.requires_approval) lines.push([txt('Opens a pull request and waits for approval')]);
  return card({
    icon: waiting ? '⚪' : '🔵',
    title: 'Queued',
    subject: r.title,
    lines,
    footer: `Follow it with \`/aq get_task ${s(r.created)}\`; its thread opens in the project channel when an agent starts.`,
  });
}

export const TASK_ACTION_COMMANDS = [
  'approve_task',
  'skip_task',
  'restart_task',
  'stop_task',
  'delete_task',
  'edit_task',
  'set_task_status',
] as const;
type TaskActionCommands = (typeof TASK_ACTION_COMMANDS)[number];

/** approve / skip / restart / stop / delete / edit / set status: what changed, in a sentence. */
export function taskActionCard(...[command, r]: CommandAndResult<TaskActionCommands>): Rendered {
  switch (command) {
    case 'approve_task':
      // Queued for landing (not landed yet) says where it waits; otherwise it is completed.
      return 'landing' in r && !r.landed
        ? card({ icon: '🚂', title: 'Approved', subject: r.title ?? r.approved, lines: [[mono(r.approved)], [txt(r.landing)]] })
        : card({
            icon: '🟢',
            title: 'Approved',
            subject: r.title ?? r.approved,
            lines: [[mono(r.approved), txt('landed' in r && r.landed ? ' · landed and completed' : ' · completed')]],
          });
    case 'skip_task': {
      const unblocked = tasksOf(r.unblocked);
      return card({
        icon: '⏭️',
        title: 'Skipped',
        subject: r.skipped,
        lines: unblocked.length
          ? [[txt(`${plural(unblocked.length, 'task')} can run now:`)], ...unblocked.slice(0, 20).map((t) => item(t.title, t.id))]
          : [[txt('Counted as done; nothing was waiting on it.')]],
      });
    }
    case 'restart_task':
      return card({
        icon: '🔁',
        title: 'Back in the queue',
        subject: r.title,
        lines: [[mono(r.restarted), txt(` · was ${statusWords(r.previous_status)}, retries reset`)]],
      });
    case 'stop_task':
      return card({ icon: '⏹️', title: 'Stopped', subject: r.stopped, lines: [[txt('It is blocked until you restart or skip it.')]] });
    case 'delete_task':
      return card({ icon: '🗑️', title: 'Deleted', subject: r.title, lines: [[mono(r.deleted)]] });
    case 'edit_task':
      return updatedCard('Updated', r.updated, r.fields);
    case 'set_task_status':
      return card({
        icon: '🛠️',
        title: 'Status set by hand',
        subject: r.title ?? r.task_id,
        lines: [[mono(r.task_id), txt(` · ${statusWords(r.old_status)} → ${statusWords(r.new_status)}`)]],
      });
  }
}

/** get_agent_error: kind, the message's first lines, the suggested fix, and what to do next. */
export function agentErrorCard(result: Result<'get_agent_error'>): Rendered {
  const r: AnyShape<Result<'get_agent_error'>> = result;
  const id = s(r.task_id);
  const lines: Line[] = [
    facts([
      ['', statusWords(r.status)],
      ['try', r.retries],
    ]),
  ];
  if (r.message) lines.push([txt(s(r.message))]);
  if (r.error_type) lines.push([bold(s(r.error_type))]);
  if (r.suggested_fix) lines.push([italic(`💡 ${s(r.suggested_fix)}`)]);
  const message = s(r.error_message);
  const open = r.status === 'FAILED' || r.status === 'BLOCKED';
  return card({
    icon: '🔴',
    title: 'Why it stopped',
    subject: r.title ?? id,
    lines,
    ...(message && { code: { label: 'error', text: message, filename: `${id}-error.txt` } }),
    ...(r.agent_summary ? { footer: md`The agent's last words: ${firstLine(r.agent_summary, 300)}`.text } : {}),
    buttons: open ? [button('Restart', TASK_BUTTONS.restart, id, 'primary'), button('Skip', TASK_BUTTONS.skip, id)] : [],
    summary: `${s(r.title ?? id)}: ${firstLine(message || r.message, 200)}`,
  });
}

/** get_task_result: outcome, tokens and cost, summary. */
export function taskResultCard(r: Result<'get_task_result'>): Rendered {
  const lines: Line[] = [
    facts([
      ['', s(r.result).toLowerCase()],
      ['', r.tokens_used ? `${formatNumber(r.tokens_used)} tokens` : null],
      ['', r.cost_usd ? formatDollars(r.cost_usd) : null],
      ['agent', r.agent_id],
    ]),
  ];
  const files = Array.isArray(r.files_changed) ? (r.files_changed as string[]) : [];
  if (files.length)
    lines.push([txt(`Changed: ${files.slice(0, 20).join(', ')}${files.length > 20 ? ` and ${files.length - 20} more` : ''}`)]);
  if (r.error_message) lines.push([italic(firstLine(r.error_message, 300))]);
  return card({
    icon: r.result === 'COMPLETED' ? '✅' : '📋',
    title: 'Latest result',
    subject: r.task_id,
    lines,
    ...(r.summary ? { code: { label: 'summary', text: s(r.summary), filename: `${s(r.task_id)}-summary.md` } } : {}),
  });
}

export const DEPENDENCY_COMMANDS = ['add_dependency', 'remove_dependency', 'get_task_dependencies', 'get_chain_health'] as const;
type DependencyCommands = (typeof DEPENDENCY_COMMANDS)[number];

/** Dependencies and chain health. */
export function dependencyCard(...[command, r]: CommandAndResult<DependencyCommands>): Rendered {
  if (command === 'get_chain_health') {
    if (Array.isArray(r.stuck_chains)) {
      const chains = r.stuck_chains as Array<{ blocked_task: { id: string; title: string }; stuck_count: number }>;
      // The whole count, not the page's: renderResult says which page this is.
      const total = countOf(r.total_stuck_chains, chains.length);
      return card({
        icon: '⛓️',
        title: total ? `${plural(total, 'stuck chain')}` : 'No stuck chains',
        subject: r.project_id,
        lines: chains.map((c) => item(c.blocked_task.title, c.blocked_task.id, [['holds up', plural(c.stuck_count, 'task')]], '⛔')),
      });
    }
    const stuck = tasksOf(r.stuck_downstream);
    const total = countOf(r.stuck_count, stuck.length);
    return card({
      icon: total ? '⛓️' : '✅',
      title: total ? `${plural(total, 'task')} stuck behind` : 'Nothing stuck behind',
      subject: r.title ?? r.task_id,
      lines: stuck.map((t) => item(t.title, t.id)),
    });
  }
  if (command === 'get_task_dependencies') {
    const up = tasksOf(r.depends_on);
    const down = tasksOf(r.dependents);
    return card({
      icon: '🔗',
      title: 'Dependencies',
      subject: r.task_id,
      lines: [
        [bold(`Waits for ${countOf(r.depends_on_total, up.length)}`)],
        ...up.map((t) => item(t.title, t.id, [['', statusWords(t.status)]])),
        [bold(`Holds up ${countOf(r.dependents_total, down.length)}`)],
        ...down.map((t) => item(t.title, t.id, [['', statusWords(t.status)]])),
      ],
      // One offset pages both lists, so the count of a page is the two headings' business.
      ...(typeof r.next_offset === 'number' && { footer: `More on the next page: ask again with \`offset=${r.next_offset}\`.` }),
    });
  }
  const added = command === 'add_dependency';
  return card({
    icon: '🔗',
    title: added ? 'Now waits for' : 'No longer waits for',
    subject: added ? r.depends_on : r.removed,
    lines: [[mono(r.task_id), txt(` · ${statusWords(r.status)}`)]],
  });
}
