import { card, item, listCard } from './cards-kit';
import { formatDuration } from './cards-format';
import { clip, type Rendered } from './common';
import { italic, md, mdCode, mono, txt, type Line } from './text';
import type { Result } from './result-types';

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** get_tool_policy / set_tool_policy: the rules, and what happens to everything else. */
export function toolPolicyCard(r: Result<'get_tool_policy' | 'set_tool_policy'>): Rendered {
  const rules = r.rules;
  const lines: Line[] = rules.map((rule): Line => [txt('• '), mono(rule)]);
  if (rules.length === 0) lines.push([txt('No rules: every tool call beyond editing the workspace is asked about.')]);
  lines.push([
    italic(
      r.asks_people
        ? `Anything else is asked in the task's thread; unanswered after ${formatDuration(r.timeout_seconds * 1000)}, ${r.on_timeout === 'block' ? 'the task is blocked' : 'the agent goes on without it'}.`
        : 'Anything else is denied: nobody is asked (AQ_ASK_PEOPLE is off).',
    ),
  ]);
  return card({
    icon: '🛡️',
    title: `Tool policy${r.is_default ? ' (default)' : ''}`,
    subject: r.project_id,
    lines,
    footer: md`Add a rule with ${mdCode(`/aq set_tool_policy project_id=${str(r.project_id) || '…'} add=…`)}`.text,
  });
}

/** list_agent_requests: what agents asked, open or settled. */
export function agentRequestsCard(r: Result<'list_agent_requests'>): Rendered {
  const lines: Line[] = r.requests.map((q) => {
    const what = q.kind === 'question' ? (q.questions[0]?.question ?? '') : `${q.tool} ${q.detail}`.trim();
    return item(
      clip(what, 200),
      `#${q.id}`,
      [
        ['task', q.task_id],
        ['', q.status.replace(/_/g, ' ')],
      ],
      q.kind === 'question' ? '❓' : '🔐',
    );
  });
  return listCard('🙋', 'Agent requests', lines, 'Nothing here.', r.total);
}

const DONE: Record<string, string> = {
  allow: 'Allowed once',
  always: 'Always allowed',
  deny: 'Denied',
  answer: 'Answered',
};

/** answer_agent_request: what was decided. */
export function answerCard(r: Result<'answer_agent_request'>): Rendered {
  const lines: Line[] = [];
  if (r.status === 'pending') lines.push([txt('Other questions of this request are still open.')]);
  if (r.rule_added) lines.push([txt('Added to the tool policy: '), mono(r.rule_added)]);
  if (r.reason) lines.push([txt(`Reason: ${str(r.reason)}`)]);
  return card({
    icon: r.decision === 'deny' ? '🚫' : '✅',
    title: DONE[str(r.decision)] ?? 'Answered',
    subject: r.title ?? r.task_id,
    lines,
  });
}
