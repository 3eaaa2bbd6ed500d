import type { App } from '@slack/bolt';
import { onAction } from '../actions/on-action';
import { HELP_BUTTONS } from '../../src/slack/blocks/action-ids';
import { helpPage } from '../../src/slack/blocks/help';
import type { ListenerDeps } from '../index';

/** The buttons of `/aq help`: each shows another page of the help in place of the message. */
export function registerHelpPages(app: App, { runtime }: ListenerDeps): void {
  onAction(app, HELP_BUTTONS.page, async ({ action, respond }) => {
    const { files: _files, ...page } = helpPage(runtime.handler.commands, action.value ?? 'overview');
    await respond({ response_type: 'ephemeral', replace_original: true, ...page });
  });
}
