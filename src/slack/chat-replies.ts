import type { KnownBlock } from '@slack/types';
import type { ChatReply } from '../chat/service';
import { markdownToMrkdwn } from './mrkdwn';

const SECTION_LIMIT = 3000;

/** Block Kit for a chat reply: the answer, then Confirm / Cancel for each pending confirmation. */
export function chatReplyBlocks(reply: ChatReply): { text: string; blocks: KnownBlock[] } {
  const text = markdownToMrkdwn(reply.text);
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < text.length && blocks.length < 40; i += SECTION_LIMIT) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: text.slice(i, i + SECTION_LIMIT) } });
  }
  for (const pending of reply.pendingConfirmations.slice(0, 5)) {
    blocks.push(
      { type: 'section', text: { type: 'mrkdwn', text: `:raised_hand: *Needs confirmation:* ${pending.summary.slice(0, 2900)}` } },
      {
        type: 'actions',
        elements: [
          { type: 'button', style: 'danger', text: { type: 'plain_text', text: 'Confirm' }, action_id: 'aq_confirm', value: pending.id },
          { type: 'button', text: { type: 'plain_text', text: 'Cancel' }, action_id: 'aq_cancel', value: pending.id },
        ],
      },
    );
  }
  return { text: text.slice(0, 3000) || '…', blocks };
}
