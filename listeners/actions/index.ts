import type { App, BlockButtonAction } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { chatReplyBlocks } from '../../src/slack/chat-replies';
import { registerTaskButtons } from './task-buttons';
import { newTaskModal } from '../../src/slack/blocks/modals';

/** Confirm / Cancel on a command the chat agent asked to run. */
export function registerActionListeners(app: App, deps: ListenerDeps): void {
  const { runtime } = deps;
  registerTaskButtons(app, deps);
  app.action<BlockButtonAction>('aq_open_new_task', async ({ ack, body, client }) => {
    await ack();
    const { projects } = (await runtime.handler.execute('list_projects', {}, { source: 'slack', userId: body.user.id })) as { projects: Array<{ id: string; name: string }> };
    await client.views.open({ trigger_id: body.trigger_id, view: newTaskModal(projects) });
  });
  for (const kind of ['confirm', 'cancel'] as const) {
    app.action<BlockButtonAction>(`aq_${kind}`, async ({ ack, body, action, client, respond }) => {
      await ack();
      if (!runtime.chat) {
        await respond({ response_type: 'ephemeral', replace_original: false, text: 'Chat is not configured, so there is nothing to confirm.' });
        return;
      }
      const actor = { source: 'chat' as const, userId: body.user.id, channelId: body.channel?.id };
      const reply = kind === 'confirm' ? await runtime.chat.confirm(action.value ?? '', actor) : await runtime.chat.cancel(action.value ?? '', actor);
      const channel = body.channel?.id;
      const ts = body.message?.ts;
      if (channel && ts) {
        const who = `${kind === 'confirm' ? ':white_check_mark: Confirmed' : ':x: Cancelled'} by <@${body.user.id}>`;
        const rendered = chatReplyBlocks(reply);
        await client.chat.update({ channel, ts, text: rendered.text, blocks: [...rendered.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: who }] }] });
      }
    });
  }
}
