import type { KnownBlock, View } from '@slack/types';
import { INTAKE_BUTTONS } from './action-ids';
import { MODAL_CALLBACKS, textInput } from './home-modals';
import { plainText } from './text';
import { button, clip, fallbackOf, LIMITS } from './common';
import { md } from './text';
import { cutWhole } from '../../util/whole-characters';

/** A task an intake proposes; it lives only in its buttons' value until someone clicks Create. */
export interface IntakeProposal {
  automationId: string;
  projectId: string;
  reporter: string;
  title: string;
  description: string;
  priority?: number;
  /** The reported message's permalink, so the task's progress reaches that thread. */
  sourceUrl?: string;
  /** The reported message (channel and ts): a reply in its thread then reaches the task. */
  report?: { channel: string; ts: string };
  /** The proposal's logged run: the first Create or Dismiss decides it, a second click is refused. */
  runId?: number;
}

/** The buttons' value: the proposal as JSON, its description shortened to fit Slack's limit. */
export function proposalValue(p: IntakeProposal): string {
  const bare = JSON.stringify({ ...p, description: '' });
  const room = LIMITS.actionValue - bare.length - 16;
  let description = p.description.slice(0, Math.max(0, room));
  // JSON escapes can lengthen the text; shorten until it fits.
  while (JSON.stringify({ ...p, description }).length > LIMITS.actionValue) description = description.slice(0, -50);
  return JSON.stringify({ ...p, description });
}

/** The proposal a button carries, or null when its value is not one. */
export function proposalOf(value: string | undefined): IntakeProposal | null {
  try {
    const p = JSON.parse(value ?? '') as Partial<IntakeProposal>;
    if (typeof p.automationId !== 'string' || typeof p.title !== 'string' || typeof p.description !== 'string') return null;
    if (typeof p.reporter !== 'string' || typeof p.projectId !== 'string') return null;
    return p as IntakeProposal;
  } catch {
    return null;
  }
}

/** The thread reply proposing a task: title, description, project, priority, Create / Edit / Dismiss. */
export function proposalMessage(p: IntakeProposal): { text: string; blocks: KnownBlock[] } {
  const value = proposalValue(p);
  const summary = md`📥 This looks like work for *${p.projectId}*: *${p.title}*`;
  return {
    text: fallbackOf(`This looks like work for ${p.projectId}: ${p.title}`),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: summary.text } },
      { type: 'section', text: { type: 'plain_text', text: clip(p.description || ' ', LIMITS.sectionText), emoji: false } },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: md`Priority ${p.priority ?? 100} · the reporter, the intake's owner or an admin can decide`.text },
        ],
      },
      {
        type: 'actions',
        elements: [
          button('Create task', INTAKE_BUTTONS.create, value, 'primary'),
          button('Edit', INTAKE_BUTTONS.edit, value),
          button('Dismiss', INTAKE_BUTTONS.dismiss, value),
        ],
      },
    ],
  };
}

/** Where the proposal message is, so the modal's outcome replaces it as Create would. */
export interface ProposalMessage {
  channelId: string;
  messageTs: string;
}

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 3000;

/**
 * Edit on a proposal: its title, description and priority in a modal, whose Create makes the
 * task from what the person wrote. The proposal travels in private_metadata (without the
 * description, which is in the form), within Slack's 3000 characters.
 */
export function intakeEditModal(p: IntakeProposal, where: ProposalMessage): View {
  const { description: _description, ...kept } = p;
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACKS.intakeEdit,
    private_metadata: JSON.stringify({ proposal: { ...kept, description: '' }, where }),
    title: plainText('Edit the task'),
    submit: plainText('Create task'),
    close: plainText('Cancel'),
    blocks: [
      {
        type: 'context',
        elements: [{ type: 'plain_text', text: clip(`For ${p.projectId}, from a report in the channel`, 150), emoji: false }],
      },
      textInput('title', 'Title', { initial: cutWhole(p.title, TITLE_MAX), max: TITLE_MAX }),
      textInput('description', 'Description', {
        multiline: true,
        initial: cutWhole(p.description, DESCRIPTION_MAX),
        max: DESCRIPTION_MAX,
        hint: 'The agent sees only this.',
      }),
      textInput('priority', 'Priority', { optional: true, initial: String(p.priority ?? 100), hint: 'Lower runs first.' }),
    ],
  };
}

/** The proposal and its message an Edit modal was opened for, or null when the metadata is not one. */
export function editedProposalOf(metadata: string | undefined): { proposal: IntakeProposal; where: ProposalMessage } | null {
  try {
    const parsed = JSON.parse(metadata || '{}') as { proposal?: unknown; where?: Partial<ProposalMessage> };
    const proposal = proposalOf(JSON.stringify(parsed.proposal ?? null));
    const where = parsed.where;
    if (!proposal || typeof where?.channelId !== 'string' || typeof where.messageTs !== 'string') return null;
    return { proposal, where: { channelId: where.channelId, messageTs: where.messageTs } };
  } catch {
    return null;
  }
}

/** A message whose triage failed, as its Try again button carries it (its text is read again then). */
export interface TriageRetry {
  channel: string;
  ts: string;
  userId: string;
  reaction?: string;
}

/** The thread reply when the model did not answer: what happened, and a button to try again. */
export function triageFailedMessage(r: TriageRetry): { text: string; blocks: KnownBlock[] } {
  const text = 'I could not triage this message just now (the model did not answer).';
  return {
    text: fallbackOf(text),
    blocks: [
      { type: 'section', text: { type: 'plain_text', text, emoji: false } },
      { type: 'actions', elements: [button('Try again', INTAKE_BUTTONS.retry, JSON.stringify(r))] },
    ],
  };
}

/** The message a Try again button names, or null when its value is not one. */
export function triageRetryOf(value: string | undefined): TriageRetry | null {
  try {
    const r = JSON.parse(value ?? '') as Partial<TriageRetry>;
    if (typeof r.channel !== 'string' || typeof r.ts !== 'string' || typeof r.userId !== 'string') return null;
    return { channel: r.channel, ts: r.ts, userId: r.userId, ...(typeof r.reaction === 'string' && { reaction: r.reaction }) };
  } catch {
    return null;
  }
}
