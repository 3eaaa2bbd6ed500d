import type { App } from '@slack/bolt';
import { esc } from '../../src/slack/blocks/common';
import { approvalHeldMessage } from '../../src/slack/blocks/plan-canvas-edits';
import { ROOM_ACTION_APPROVE, ROOM_ACTION_STOP } from '../../src/slack/rooms/room-context';
import type { ListenerDeps } from '../index';

/** What a click on a context-bar action item delivers (`code_channel_action`), as far as it is read here. */
interface CodeChannelAction {
  channel_id?: string;
  channel?: string;
  user?: string;
  user_id?: string;
  key?: string;
  item_key?: string;
}

const COMMANDS: Record<string, string> = { [ROOM_ACTION_APPROVE]: 'approve_task', [ROOM_ACTION_STOP]: 'stop_task' };

/**
 * The Approve and Stop items of a task room's context bar do what the card's buttons do: the
 * same catalog command, as the person who clicked, under the same permission rules; a refusal
 * or a stale click is told only to them.
 */
export function registerRoomActions(app: App, { runtime, surfaces }: ListenerDeps): void {
  app.event('code_channel_action' as never, async ({ event, client }: { event: CodeChannelAction; client: App['client'] }) => {
    const channel = event.channel_id ?? event.channel;
    const user = event.user ?? event.user_id;
    const command = COMMANDS[event.key ?? event.item_key ?? ''];
    if (!channel || !user || !command) return;
    const actor = { source: 'slack' as const, userId: user, channelId: channel };
    const room = await runtime.handler.execute('get_task_for_room', { channel_id: channel }, actor);
    if ('error' in room || typeof room.task_id !== 'string') return;
    const taskId = room.task_id;
    const held = command === 'approve_task' ? await surfaces.planCanvases.beforeApproval(client, taskId, actor) : null;
    if (held) {
      const message = approvalHeldMessage(held);
      await client.chat.postEphemeral({ channel, user, text: message.text, blocks: message.blocks });
      return;
    }
    const result = await runtime.handler.executeAny(command, { task_id: taskId }, actor);
    const text =
      'error' in result
        ? `:no_entry: ${esc(result.error)}`
        : command === 'approve_task'
          ? `:white_check_mark: Approved \`${esc(taskId)}\`.${typeof result.landing === 'string' ? ` ${esc(result.landing)}` : ''}`
          : `:octagonal_sign: Stopped \`${esc(taskId)}\`.`;
    await client.chat.postEphemeral({ channel, user, text });
  });
}
