import type { KnownBlock } from '@slack/types';
import type { ChatReply } from '../chat/service';
import { button, clip, fallback, LIMITS, type Rendered } from './blocks/common';
import { fitBlocks } from './blocks/long';
import { bold, packRich, txt } from './blocks/text';
import { markdownToBlocks, markdownToMrkdwn } from './mrkdwn';

const CONFIRMATIONS_SHOWN = 5;

/**
 * Block Kit for a chat reply: the answer (Markdown → mrkdwn, escaped, nothing cut: what does not
 * fit one message is attached), then Confirm / Cancel for each pending confirmation. The
 * confirmation's summary quotes the model's arguments, so it is shown as literal text.
 */
export function chatReplyBlocks(reply: ChatReply): Rendered {
  const pending = reply.pendingConfirmations.slice(0, CONFIRMATIONS_SHOWN);
  const confirmations: KnownBlock[] = pending.flatMap((p) => [
    ...packRich([[txt('✋ '), bold('Needs confirmation: '), txt(p.summary)]], LIMITS.richText),
    {
      type: 'actions',
      elements: [
        {
          ...button('Confirm', 'aq_confirm', p.id, 'danger'),
          confirm: {
            title: { type: 'plain_text', text: 'Run this command?' },
            text: { type: 'plain_text', text: clip(p.summary || 'Run the command the assistant proposed.', 300) },
            confirm: { type: 'plain_text', text: 'Run it' },
            deny: { type: 'plain_text', text: 'Not now' },
            style: 'danger',
          },
        },
        button('Cancel', 'aq_cancel', p.id),
      ],
    } as KnownBlock,
  ]);
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
