import type { KnownBlock } from '@slack/types';
import { INTAKE_BUTTONS } from './action-ids';
import { button, clip, fallbackOf, LIMITS } from './common';
import { md } from './text';

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

/** The thread reply proposing a task: title, description, project, priority, Create / Dismiss. */
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
        elements: [button('Create task', INTAKE_BUTTONS.create, value, 'primary'), button('Dismiss', INTAKE_BUTTONS.dismiss, value)],
      },
    ],
  };
}
