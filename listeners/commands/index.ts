import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { aqCommand } from './aq';

export function registerCommandListeners(app: App, deps: ListenerDeps): void {
  app.command('/aq', aqCommand(deps));
}
