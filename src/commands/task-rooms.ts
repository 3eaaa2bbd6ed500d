import { z } from 'zod';
import { defineCommand } from './catalog';
import { requiredText } from './schema';

export const getTaskForRoom = defineCommand({
  name: 'get_task_for_room',
  group: 'channels',
  kind: 'read',
  description: "The task whose Slack room (code channel) this is (null when the channel is no task's room).",
  input: () => z.object({ channel_id: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), requiredText('Slack channel id')) }),
  async run({ channel_id }, ctx) {
    return { channel_id, task_id: await ctx.db.taskRooms.taskFor(channel_id) };
  },
});

export const taskRoomCommands = [getTaskForRoom];
