import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { aqCommand } from './aq';
import { registerHelpPages } from './help-pages';
import { registerRoomCommands } from './room-commands';

export function registerCommandListeners(app: App, deps: ListenerDeps): void {
  app.command('/aq', aqCommand(deps));
  registerHelpPages(app, deps);
  registerRoomCommands(app, deps);
}
