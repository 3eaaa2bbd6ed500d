import type { KnownBlock } from '@slack/types';
import type { ChatReply } from '../chat/service';
import { actionsBlock, uniqueBlockIds } from './blocks/actions';
import { button, clip, fallback, LIMITS, type Rendered } from './blocks/common';
import { fitBlocks } from './blocks/long';
import { bold, packRich, txt } from './blocks/text';
import { markdownToBlocks, markdownToMrkdwn } from './mrkdwn';
import type { FinishedReply } from './ai-surfaces/reply-surface';
import { CHAT_BUTTONS } from './blocks/action-ids';

const CONFIRMATIONS_SHOWN = 5;

/** Confirm / Cancel for each command the agent asked a person to confirm (the summary shown literally). */
export function confirmationBlocks(reply: ChatReply): KnownBlock[] {
  return reply.pendingConfirmations.slice(0, CONFIRMATIONS_SHOWN).flatMap((p) => [
    ...packRich([[txt('✋ '), bold('Needs confirmation: '), txt(p.summary)]], LIMITS.richText),
    actionsBlock([
      {
        ...button('Confirm', CHAT_BUTTONS.confirm, p.id, 'danger'),
        confirm: {
          title: { type: 'plain_text', text: 'Run this command?' },
          text: { type: 'plain_text', text: clip(p.summary || 'Run the command the assistant proposed.', 300) },
          confirm: { type: 'plain_text', text: 'Run it' },
          deny: { type: 'plain_text', text: 'Not now' },
          style: 'danger',
        },
      },
      button('Cancel', CHAT_BUTTONS.cancel, p.id),
    ]),
  ]);
}

/**
 * Block Kit for a chat reply: the answer (Markdown → mrkdwn, escaped, nothing cut: what does not
 * fit one message is attached), then Confirm / Cancel for each pending confirmation. The
 * confirmation's summary quotes the model's arguments, so it is shown as literal text.
 */
export function chatReplyBlocks(reply: ChatReply): Rendered {
  const confirmations = confirmationBlocks(reply);
  const answer = fitBlocks(
    markdownToBlocks(reply.text || '…'),
    () => reply.text,
    'reply.md',
    LIMITS.blocksPerMessage - confirmations.length,
  );
  return {
    text: fallback(markdownToMrkdwn(reply.text)) || '…',
    blocks: [...answer.blocks, ...confirmations],
    ...(answer.file && { files: [answer.file] }),
  };
}

/**
 * The reply for a ReplySurface: the answer as escaped mrkdwn (streamed) and as blocks (posted),
 * then Confirm / Cancel and the result cards, which both paths show after the answer.
 */
export function finishedReply(reply: ChatReply, results: KnownBlock[], conversationId: string): FinishedReply {
  const confirmations = confirmationBlocks(reply);
  const answer = fitBlocks(
    markdownToBlocks(reply.text || '…'),
    () => reply.text,
    'reply.md',
    LIMITS.blocksPerMessage - 1 - confirmations.length,
  );
  return {
    mrkdwn: markdownToMrkdwn(reply.text || '…'),
    text: fallback(markdownToMrkdwn(reply.text)) || '…',
    answerBlocks: answer.blocks,
    extras: uniqueBlockIds([...confirmations, ...results]),
    conversationId,
  };
}
