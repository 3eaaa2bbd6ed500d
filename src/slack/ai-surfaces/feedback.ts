import type { KnownBlock } from '@slack/types';
import { actionsBlock } from '../blocks/actions';
import { button } from '../blocks/common';
import { FEEDBACK_BUTTONS } from '../blocks/action-ids';

export type Rating = 'good' | 'bad';

/** What a feedback button carries: the rating and the conversation it rates. */
export function feedbackValue(rating: Rating, conversationId: string): string {
  return `${rating}|${conversationId}`;
}

export function parseFeedbackValue(value: string | undefined): { rating: Rating; conversationId: string } | null {
  const match = /^(good|bad)\|(.+)$/.exec(value ?? '');
  return match ? { rating: match[1] as Rating, conversationId: match[2] } : null;
}

/** Slack's feedback buttons (a context_actions block), for workspaces that show them. */
export function nativeFeedbackBlock(conversationId: string): KnownBlock {
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_BUTTONS.rate,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          accessibility_label: 'This answer helped',
          value: feedbackValue('good', conversationId),
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          accessibility_label: 'This answer did not help',
          value: feedbackValue('bad', conversationId),
        },
      },
    ],
  } as unknown as KnownBlock;
}

/** The same choice as two plain buttons, for workspaces that refuse the feedback block. */
export function classicFeedbackBlock(conversationId: string): KnownBlock {
  return actionsBlock(
    [
      button('👍', FEEDBACK_BUTTONS.good, feedbackValue('good', conversationId)),
      button('👎', FEEDBACK_BUTTONS.bad, feedbackValue('bad', conversationId)),
    ],
    FEEDBACK_BUTTONS.rate,
  );
}

/** The ephemeral thanks only the person who rated sees. */
export function feedbackThanks(rating: Rating): string {
  return rating === 'good'
    ? 'Thanks, noted that this answer helped.'
    : 'Thanks, noted that this answer did not help. Saying what you expected in this thread gives the assistant another try.';
}
