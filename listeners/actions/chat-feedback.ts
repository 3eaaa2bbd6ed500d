import type { App, BlockAction } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { feedbackThanks, parseFeedbackValue } from '../../src/slack/ai-surfaces/feedback';
import { FEEDBACK_BUTTONS } from '../../src/slack/blocks/action-ids';
import { onAction, type ActionArgs } from './on-action';
import { originOfClick, tell } from './reply';

/**
 * 👍 / 👎 on a chat reply (Slack's feedback buttons, or our classic buttons): stored with the
 * conversation, and only the person who clicked is thanked.
 */
export function registerChatFeedback(app: App, { runtime, surfaces }: ListenerDeps): void {
  const record = async ({ body, action, client, respond }: ActionArgs<BlockAction>) => {
    const origin = originOfClick(body, respond);
    const parsed = parseFeedbackValue((action as { value?: string }).value);
    if (!parsed) {
      await tell({ runtime, client }, origin, 'That feedback button is not one of ours, so nothing was recorded.');
      return;
    }
    const messageTs = body.message?.ts ?? (body.container as { message_ts?: string } | undefined)?.message_ts ?? null;
    try {
      await surfaces.recordFeedback(parsed.conversationId, body.user.id, parsed.rating, messageTs);
    } catch (err) {
      console.error(`Could not record feedback on ${parsed.conversationId}: ${String(err)}`);
      await tell({ runtime, client }, origin, 'Your feedback could not be saved just now; please try again in a moment.');
      return;
    }
    await tell({ runtime, client }, origin, feedbackThanks(parsed.rating));
  };
  for (const id of Object.values(FEEDBACK_BUTTONS)) onAction<BlockAction>(app, id, record);
}
