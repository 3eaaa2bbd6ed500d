import type { KnownBlock, RichTextElement } from '@slack/types';
import { formatDuration } from './cards-format';
import { actionsBlock } from './actions';
import { button, clip, fallbackOf, type Rendered } from './common';
import { bold, italic, mono, plainContext, preformatted, richLines, txt, type Line } from './text';
import { REQUEST_ACTIONS } from './action-ids';
import { plainText } from './text';
import { cutWhole } from '../../util/whole-characters';

type Payload = Record<string, unknown>;

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** Block ids of a request's button rows, so a redraw can take them away. */
export const REQUEST_BLOCK_PREFIX = 'aqreq:';

/** A Slack user as a mention element (only an id we recognise), else the name as text. */
export function person(by: unknown): RichTextElement {
  const id = str(by);
  return /^[UW][A-Z0-9]{2,}$/.test(id) ? { type: 'user', user_id: id } : txt(id || 'someone');
}

interface Question {
  question: string;
  header?: string;
  options: Array<{ label: string; description?: string }>;
  multiSelect?: boolean;
}

function questionsOf(p: Payload): Question[] {
  return Array.isArray(p.questions) ? (p.questions as Question[]).filter((q) => q && typeof q.question === 'string') : [];
}

function timeoutLine(p: Payload): string {
  const seconds = Number(p.timeout_seconds);
  if (!Number.isFinite(seconds) || seconds <= 0) return '';
  const after = formatDuration(seconds * 1000);
  return p.on_timeout === 'block'
    ? `Unanswered after ${after}, the task is blocked.`
    : `Unanswered after ${after}, the agent goes on without it.`;
}

/** A question of the agent, in its task's thread: each option a button, a reply in the thread for anything else. */
export function questionPost(p: Payload): Rendered {
  const id = str(p.request_id);
  const title = str(p.title);
  const questions = questionsOf(p);
  const blocks: KnownBlock[] = [richLines([[txt('❓ '), bold('The agent asks'), txt(' · '), bold(title)]])];
  questions.slice(0, 4).forEach((q, qi) => {
    const lines: Line[] = [[...(q.header ? [bold(q.header), txt(': ')] : []), txt(q.question)]];
    for (const o of q.options.slice(0, 10)) if (o.description) lines.push([txt('• '), bold(o.label), txt(` — ${o.description}`)]);
    if (q.multiSelect) lines.push([italic('Several may apply: tick each one, then Submit.')]);
    blocks.push(richLines(lines));
    const options = q.options.slice(0, 10);
    if (!options.length) return;
    const label = (o: { label: string }, oi: number) => o.label || `Option ${oi + 1}`;
    const row = q.multiSelect
      ? [
          {
            type: 'checkboxes' as const,
            action_id: REQUEST_ACTIONS.choices,
            options: options.map((o, oi) => ({ text: plainText(clip(label(o, oi), 75)), value: String(oi) })),
          },
          button('Submit', REQUEST_ACTIONS.submitChoices, `${id}:${qi}`, 'primary'),
        ]
      : options.map((o, oi) => button(label(o, oi), `${REQUEST_ACTIONS.optionPrefix}:${qi}:${oi}`, `${id}:${qi}:${oi}`));
    blocks.push(actionsBlock(row, `${REQUEST_BLOCK_PREFIX}${id}:${qi}`));
  });
  blocks.push(plainContext(['Reply in this thread to answer in your own words.', timeoutLine(p)].filter(Boolean).join(' ')));
  return { text: fallbackOf(`❓ The agent asks (${title}): ${questions[0]?.question ?? ''}`), blocks };
}

/** A tool call outside the project's policy, in its task's thread: Allow once, Always allow, Deny with a reason. */
export function permissionPost(p: Payload): Rendered {
  const id = str(p.request_id);
  const title = str(p.title);
  const tool = str(p.tool);
  const lines: Line[] = [
    [txt('🔐 '), bold('Permission needed'), txt(' · '), bold(title)],
    [txt('The agent wants to use '), mono(tool)],
  ];
  if (p.description) lines.push([italic(p.description)]);
  if (p.reason) lines.push([txt(`Why it asks: ${str(p.reason)}`)]);
  const blocks: KnownBlock[] = [richLines(lines)];
  if (p.detail) blocks.push(preformatted(clip(str(p.detail), 2900)));
  blocks.push(
    actionsBlock(
      [
        button('Allow once', REQUEST_ACTIONS.allow, id, 'primary'),
        button('Always allow for this project', REQUEST_ACTIONS.always, id),
        button('Deny…', REQUEST_ACTIONS.deny, id, 'danger'),
      ],
      `${REQUEST_BLOCK_PREFIX}${id}`,
    ),
  );
  // What the second button does, and what silence does, as small print under the buttons.
  blocks.push(plainContext(`“Always allow” adds ${str(p.rule)} to the project's tool policy. ${timeoutLine(p)}`.trim()));
  return { text: fallbackOf(`🔐 Permission needed (${title}): ${tool} ${cutWhole(str(p.detail), 200)}`), blocks };
}

const DECISION_WORDS: Record<string, string> = {
  allow: 'Allowed once',
  always: 'Always allowed for this project',
  deny: 'Denied',
};

/** How an answer reads in the thread: who answered, and what. */
export function answeredReply(p: Payload): Rendered {
  const title = str(p.title);
  if (p.kind === 'question') {
    const answers = (p.answers && typeof p.answers === 'object' ? p.answers : {}) as Record<string, unknown>;
    const lines: Line[] = [[txt('💬 '), bold('Answered'), txt(' by '), person(p.answered_by), txt(' · '), bold(title)]];
    for (const [question, answer] of Object.entries(answers).slice(0, 10)) lines.push([italic(question), txt(' → '), txt(str(answer))]);
    return { text: fallbackOf(`💬 Answered: ${title}`), blocks: [richLines(lines)] };
  }
  const words = DECISION_WORDS[str(p.decision)] ?? 'Answered';
  const lines: Line[] = [
    [txt(p.decision === 'deny' ? '🚫 ' : '✅ '), bold(words), txt(' by '), person(p.answered_by), txt(' · '), bold(title)],
  ];
  if (p.reason) lines.push([txt(`Reason: ${str(p.reason)}`)]);
  if (p.rule) lines.push([txt('Added to the tool policy: '), mono(p.rule)]);
  return { text: fallbackOf(`${words}: ${title}`), blocks: [richLines(lines)] };
}

/** A request nobody answered in time, and what happened instead. */
export function timedOutReply(p: Payload): Rendered {
  const title = str(p.title);
  const after = formatDuration(Number(p.timeout_seconds ?? 0) * 1000);
  const what = p.kind === 'question' ? 'question' : 'permission request';
  const outcome = p.action === 'block' ? 'so the task is blocked. Restart it when you can answer.' : 'so the agent went on without it.';
  return {
    text: fallbackOf(`⌛ No answer: ${title}`),
    blocks: [
      richLines([
        [txt('⌛ '), bold('No answer'), txt(' · '), bold(title)],
        [txt(`Nobody answered the ${what} within ${after}, ${outcome}`)],
      ]),
    ],
  };
}

/**
 * The request message after a click: its buttons replaced by what was done (only the clicked
 * row's, `onlyBlock`, while other questions of the request are still open).
 */
export function settledRequestBlocks(original: KnownBlock[], stamp: Line, onlyBlock?: string): KnownBlock[] {
  const kept = original.filter(
    (b) => !(b.type === 'actions' && (onlyBlock ? b.block_id === onlyBlock : str(b.block_id).startsWith(REQUEST_BLOCK_PREFIX))),
  );
  return [...kept, richLines([stamp])];
}
