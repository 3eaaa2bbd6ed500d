import type { CommandContext } from './catalog';

/** get_task's room keys: where the task's Slack room is and the views it shows (nothing when it has none). */
export interface RoomKeys {
  room_channel_id?: string;
  room_url?: string;
  views?: string[];
  room_archived?: true;
}

/** The task's room keys, read from its room's row. */
export async function roomKeys(ctx: CommandContext, taskId: string): Promise<RoomKeys> {
  const room = await ctx.db.taskRooms.get(taskId);
  if (!room) return {};
  return {
    room_channel_id: room.channelId,
    ...(room.url && { room_url: room.url }),
    views: room.views,
    ...(room.archivedAt && { room_archived: true }),
  };
}
