import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { commandHelpText, commandListText } from '../../src/commands/help';
import { parseCommandArgs, tokenize } from '../../src/slack/args';
import type { ListenerDeps } from '../index';
import { chatReplyBlocks } from '../../src/slack/chat-replies';
import { renderResult } from '../../src/slack/blocks/render';

const SLACK_TEXT_LIMIT = 3000;

/**
 * `/aq <command> key=value …`: acknowledged at once, then run through the command layer and
 * answered through response_url. `/aq help [command]` lists the catalog.
 */
export function aqCommand({ runtime }: ListenerDeps) {
  return async ({ command, ack, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const words = tokenize(command.text ?? '');
    const name = words[0]?.toLowerCase();
    const commands = runtime.handler.commands;
    if (!name || name === 'help') {
      const target = words[1] ? commands.find((c) => c.name === words[1]) : undefined;
      const text = target ? commandHelpText(target) : commandListText(commands).replace(/aq help/g, '/aq help').replace(/`aq exec [^`]*`/, '`/aq COMMAND key=value`');
      await respond({ response_type: 'ephemeral', text: `\`\`\`${text.slice(0, SLACK_TEXT_LIMIT - 10)}\`\`\`` });
      return;
    }
    const definition = commands.find((c) => c.name === name);
    if (!definition) {
      if (!runtime.chat) {
        await respond({
          response_type: 'ephemeral',
          text: `I don't know the command \`${name}\`, and plain-language requests need ANTHROPIC_API_KEY. Try \`/aq help\` for the list of commands.`,
        });
        return;
      }
      const project = await runtime.db.projects.findByChannel(command.channel_id);
      const reply = await runtime.chat.reply({
        conversationId: `${command.channel_id}:slash:${command.user_id}`,
        text: command.text,
        actor: { source: 'chat', userId: command.user_id, channelId: command.channel_id },
        userName: `<@${command.user_id}>`,
        projectId: project?.id ?? null,
      });
      await respond({ response_type: 'ephemeral', ...chatReplyBlocks(reply) });
      return;
    }
    const handler = runtime.createHandler();
    const linked = await runtime.db.projects.findByChannel(command.channel_id);
    handler.activeProjectId = linked?.id ?? null;
    const args = parseCommandArgs(definition, words.slice(1));
    const result = await handler.execute(name, args, {
      source: 'slack',
      userId: command.user_id,
      channelId: command.channel_id,
    });
    if ('error' in result) {
      await respond({ response_type: 'ephemeral', text: `:warning: ${String(result.error)}` });
      return;
    }
    await respond({ response_type: 'ephemeral', ...renderResult(name, args, result) });
  };
}
