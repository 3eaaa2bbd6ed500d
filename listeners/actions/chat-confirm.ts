import type { App } from '@slack/bolt';
import { onAction } from './on-action';
import { CHAT_BUTTONS } from '../../src/slack/blocks/action-ids';
import type { ListenerDeps } from '../index';
import { chatReplyBlocks } from '../../src/slack/chat-replies';
import { esc } from '../../src/slack/blocks/common';
import { originOfClick, tell } from './reply';

/**
 * Confirm / Cancel on a command the chat agent asked to run: the conversation goes on with the
 * model, and the message is redrawn with the answer and who decided.
 */
export function registerChatConfirmations(app: App, { runtime }: ListenerDeps): void {
  for (const kind of ['confirm', 'cancel'] as const) {
    onAction(app, CHAT_BUTTONS[kind], async ({ body, action, client, respond }) => {
      const origin = originOfClick(body, respond);
      if (!runtime.chat) {
        await tell({ runtime, client }, origin, 'Chat is not configured, so there is nothing to confirm.');
        return;
      }
      const actor = { source: 'chat' as const, userId: body.user.id, channelId: body.channel?.id };
      const reply =
        kind === 'confirm' ? await runtime.chat.confirm(action.value ?? '', actor) : await runtime.chat.cancel(action.value ?? '', actor);
      if (reply.refused) {
        // The buttons stay for someone who may press them.
        await tell({ runtime, client }, origin, esc(reply.text));
        return;
      }
      const rendered = chatReplyBlocks(reply);
      const channel = body.channel?.id;
      const ts = body.message?.ts;
      if (!channel || !ts) {
        await tell({ runtime, client }, origin, rendered.text, rendered.blocks);
        return;
      }
      const who = `${kind === 'confirm' ? ':white_check_mark: Confirmed' : ':x: Cancelled'} by <@${body.user.id}>`;
      await client.chat.update({
        channel,
        ts,
        text: rendered.text,
        blocks: [...rendered.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: who }] }],
      });
    });
  }
}
