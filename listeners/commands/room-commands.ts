import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { errorReply } from '../../src/slack/blocks/errors';
import { approvalHeldMessage, canvasEditsMessage } from '../../src/slack/blocks/plan-canvas-edits';
import { renderResult } from '../../src/slack/blocks/render';
import { catalogCommandFor, ROOM_COMMANDS, type RoomCommandName } from '../../src/slack/rooms/room-commands';
import type { ListenerDeps } from '../index';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

const NAMES = new Set<string>(ROOM_COMMANDS.map((c) => c.name));

/**
 * A task room's own slash commands (`/approve`, `/stop`, … registered with setCommands): each
 * runs its catalog command on the room's task, as the person who typed it, under the same
 * permission rules as the buttons and `/aq`; the answer is only for them.
 */
export function registerRoomCommands(app: App, { runtime, surfaces }: ListenerDeps): void {
  app.command(new RegExp(`^/(${[...NAMES].join('|')})$`), async ({ command, ack, respond, client }: Args) => {
    await ack();
    const name = command.command.replace(/^\//, '') as RoomCommandName;
    const actor = { source: 'slack' as const, userId: command.user_id, channelId: command.channel_id };
    const handler = runtime.createHandler();
    const room = await handler.execute('get_task_for_room', { channel_id: command.channel_id }, actor);
    if ('error' in room || typeof room.task_id !== 'string') {
      await respond({ response_type: 'ephemeral', ...errorReply(`/${name} works in a task's room; here, use /aq.`) });
      return;
    }
    const { command: catalogName, args, of } = catalogCommandFor(name, command.text ?? '');
    if (name === 'request-changes' && !String(args.text).trim()) {
      await respond({
        response_type: 'ephemeral',
        ...errorReply('Say what to change after /request-changes, e.g. `/request-changes use tabs`.'),
      });
      return;
    }
    const taskId = room.task_id;
    if (name === 'plan') {
      // The plan canvas read back: a person's edits are shown (with Apply and Discard) before anything changes;
      // without edits, the plan's steps (get_plan).
      const edits = await surfaces.planCanvases.edits(client, taskId, actor);
      if (edits.kind === 'edits' || edits.kind === 'rejected') {
        await respond({ response_type: 'ephemeral', ...canvasEditsMessage(edits) });
        return;
      }
    }
    if (name === 'approve') {
      const held = await surfaces.planCanvases.beforeApproval(client, taskId, actor);
      if (held) {
        await respond({ response_type: 'ephemeral', ...approvalHeldMessage(held) });
        return;
      }
    }
    let target: Record<string, unknown> = { task_id: taskId };
    if (of === 'project') {
      const task = await handler.execute('get_task', { task_id: taskId }, actor);
      target = { project_id: 'error' in task ? '' : task.project_id };
    }
    const fullArgs = { ...target, ...args, ...(catalogName === 'message_task' && { author: command.user_name || command.user_id }) };
    const result = await handler.executeAny(catalogName, fullArgs, actor);
    const { files: _long, ...message } = renderResult(catalogName, fullArgs, result);
    await respond({ response_type: 'ephemeral', ...message });
  });
}
