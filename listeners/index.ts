import type { App } from '@slack/bolt';
import type { Runtime } from '../src/runtime';
import { registerCommandListeners } from './commands';
import { registerEventListeners } from './events';
import { registerActionListeners } from './actions';
import { registerViewListeners } from './views';

export interface ListenerDeps {
  runtime: Runtime;
}

/** Every Slack listener, registered in the layout of Slack's bolt-ts templates. */
export function registerListeners(app: App, deps: ListenerDeps): () => void {
  registerCommandListeners(app, deps);
  const stopEvents = registerEventListeners(app, deps);
  registerActionListeners(app, deps);
  registerViewListeners(app, deps);
  return stopEvents;
}
