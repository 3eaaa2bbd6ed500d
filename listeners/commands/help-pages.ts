import type { App, BlockButtonAction } from '@slack/bolt';
import { actionMatcher } from '../../src/slack/blocks/actions';
import { HELP_ACTION, helpPage } from '../../src/slack/blocks/help';
import type { ListenerDeps } from '../index';

/** The buttons of `/aq help`: each shows another page of the help in place of the message. */
export function registerHelpPages(app: App, { runtime }: ListenerDeps): void {
  app.action<BlockButtonAction>(actionMatcher(HELP_ACTION), async ({ ack, action, respond }) => {
    await ack();
    const { files: _files, ...page } = helpPage(runtime.handler.commands, action.value ?? 'overview');
    await respond({ response_type: 'ephemeral', replace_original: true, ...page });
  });
}
