import { z } from 'zod';
import { type CommandContext, CommandError, defineCommand } from './catalog';
import { requireProject } from './projects';
import { optional, requiredText } from './schema';

export const setProjectChannel = defineCommand({
  name: 'set_project_channel',
  group: 'channels',
  kind: 'change',
  description: 'Link a Slack channel to a project: its work is reported there and commands there default to it.',
  input: () =>
    z.object({
      project_id: requiredText('Project id'),
      channel_id: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), requiredText('Slack channel id, e.g. C0123456789')),
    }),
  run: ({ project_id, channel_id }, ctx) => linkChannel(ctx, project_id, channel_id),
});

/** set_project_channel's work and answer, which set_control_interface gives too once it has the channel's id. */
async function linkChannel(ctx: CommandContext, projectId: string, channelId: string) {
  const updated = await ctx.db.projects.update(projectId, { chatChannelId: channelId });
  if (!updated) throw new CommandError(`Project '${projectId}' not found.`);
  return { project_id: projectId, channel_id: channelId, status: 'linked' as const };
}

// The spec keeps the original's names here (project_name, _resolved_channel_id, guild_channels:
// a Discord "guild" is a Slack workspace), so callers written against it keep working.
const channelList = z
  .array(z.object({ id: z.preprocess((v) => String(v), z.string()), name: z.string() }))
  .describe('Known channels as {id, name}, used to resolve channel_name');

export const setControlInterface = defineCommand({
  name: 'set_control_interface',
  group: 'channels',
  kind: 'change',
  description: 'Link a channel to a project by channel name (a leading # is ignored).',
  input: () =>
    z.object({
      project_id: optional(z.string().trim().min(1).describe('Project id')),
      project_name: optional(z.string().trim().min(1).describe('Project id (alternative spelling)')),
      channel_name: optional(z.string().trim().min(1).describe('Channel name, e.g. #aq-demo')),
      _resolved_channel_id: optional(z.string().trim().min(1).describe('Channel id already resolved by the caller')),
      guild_channels: optional(channelList),
    }),
  async run(args, ctx) {
    const projectId = args.project_id ?? args.project_name;
    if (!projectId) throw new CommandError("Missing required field 'project_id'.");
    if (!args.channel_name) throw new CommandError("Missing required field 'channel_name'.");
    const name = args.channel_name.replace(/^#/, '');
    let channelId = args._resolved_channel_id;
    if (!channelId) {
      if (!args.guild_channels) {
        throw new CommandError(
          `Cannot resolve channel '#${name}': no channel list was given. Use set_project_channel with the channel id.`,
        );
      }
      const match = args.guild_channels.find((c) => c.name.replace(/^#/, '') === name);
      if (!match) throw new CommandError(`Channel '#${name}' not found.`);
      channelId = match.id;
    }
    await requireProject(ctx, projectId);
    return linkChannel(ctx, projectId, channelId);
  },
});

export const getProjectChannels = defineCommand({
  name: 'get_project_channels',
  group: 'channels',
  kind: 'read',
  description: 'The Slack channel linked to a project, if any.',
  input: () => z.object({ project_id: requiredText('Project id') }),
  async run({ project_id }, ctx) {
    const project = await requireProject(ctx, project_id);
    return { project_id, channel_id: project.chatChannelId };
  },
});

export const getProjectForChannel = defineCommand({
  name: 'get_project_for_channel',
  group: 'channels',
  kind: 'read',
  description: 'The project a Slack channel is linked to (null when none).',
  input: () =>
    z.object({
      channel_id: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), requiredText('Slack channel id')),
    }),
  async run({ channel_id }, ctx) {
    const project = await ctx.db.projects.findByChannel(channel_id);
    return { channel_id, project_id: project?.id ?? null, project_name: project?.name ?? null };
  },
});

export const channelCommands = [setProjectChannel, setControlInterface, getProjectChannels, getProjectForChannel];
