import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { suggestCommands } from '../../src/commands/help';
import { fieldsOf, parseSlashArgs, tokenize } from '../../src/slack/args';
import { errorReply } from '../../src/slack/blocks/errors';
import { helpFor } from '../../src/slack/blocks/help';
import { renderResult } from '../../src/slack/blocks/render';
import { chatReplyBlocks } from '../../src/slack/chat-replies';
import { uploadFiles } from '../../src/slack/uploads';
import type { Rendered } from '../../src/slack/blocks/common';
import type { ListenerDeps } from '../index';

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** The words a command did not use: bare words no field took, and keys it does not have. */
function notUnderstood(fieldNames: Set<string>, parsed: { args: Record<string, unknown>; unused: string[] }): string[] {
  const unknownKeys = Object.keys(parsed.args)
    .filter((key) => !fieldNames.has(key))
    .map((key) => `${key}=…`);
  return [...unknownKeys, ...parsed.unused];
}

/**
 * `/aq <command> key=value …`: acknowledged at once, then run through the command layer and
 * answered through response_url. `/aq help [command|group]` shows the catalog. Nothing here reads
 * the database: the channel's project comes from the get_project_for_channel command.
 */
export function aqCommand({ runtime }: ListenerDeps) {
  return async ({ command, ack, respond, client }: Args): Promise<void> => {
    await ack();
    const reply = async (rendered: Rendered) => {
      const { files, ...message } = rendered;
      await respond({ response_type: 'ephemeral', ...message });
      if (files?.length) {
        const failure = await uploadFiles(client, { channelId: command.channel_id, userId: command.user_id }, files);
        if (failure) await respond({ response_type: 'ephemeral', ...errorReply(failure) });
      }
    };
    const words = tokenize(command.text ?? '');
    const name = words[0]?.toLowerCase();
    const handler = runtime.createHandler();
    const commands = handler.commands;
    if (!name || name === 'help') {
      const help = helpFor(commands, words[1]);
      if (help) return reply(help);
      const close = suggestCommands(words[1], commands).join(', ');
      return reply(errorReply(`There is no command or group called '${words[1]}'. Close matches: ${close}.`));
    }
    const actor = { source: 'slack' as const, userId: command.user_id, channelId: command.channel_id };
    const linked = await handler.execute('get_project_for_channel', { channel_id: command.channel_id }, actor);
    const projectId = 'error' in linked ? null : linked.project_id;
    const definition = handler.command(name);
    if (!definition) {
      if (!runtime.chat) {
        const close = suggestCommands(name, commands).join(', ');
        return reply(
          errorReply(
            `I don't know the command \`${name}\`, and plain-language requests need ANTHROPIC_API_KEY. Close matches: ${close}. Try \`/aq help\` for the list of commands.`,
          ),
        );
      }
      const answer = await runtime.chat.reply({
        conversationId: `${command.channel_id}:slash:${command.user_id}`,
        text: command.text,
        actor: { source: 'chat', userId: command.user_id, channelId: command.channel_id },
        userName: `<@${command.user_id}>`,
        projectId,
      });
      return reply(chatReplyBlocks(answer));
    }
    const parsed = parseSlashArgs(definition, words.slice(1));
    const leftOver = notUnderstood(new Set(fieldsOf(definition).map((f) => f.name)), parsed);
    if (leftOver.length) {
      const fields = fieldsOf(definition).map((f) => f.name);
      return reply(
        errorReply(
          `I did not understand ${leftOver.map((w) => `'${w}'`).join(', ')}: ${name} takes ${fields.length ? fields.join(', ') : 'no fields'}. Put values with spaces in quotes, e.g. title="Fix the login".`,
          name,
        ),
      );
    }
    handler.activeProjectId = projectId;
    const result = await handler.executeAny(name, parsed.args, actor);
    if ('error' in result) return reply(errorReply(result.error, name));
    return reply(renderResult(name, parsed.args, result));
  };
}
