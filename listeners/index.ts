import type { App } from '@slack/bolt';
import type { Runtime } from '../src/runtime';
import type { DeliverySource } from '../src/slack/slack-events';
import type { TaskThreadSource } from '../src/slack/task-thread-replies';
import type { AiSurfaces } from '../src/slack/ai-surfaces';
import type { HomePublisher } from '../src/slack/home';
import { registerCommandListeners } from './commands';
import { registerEventListeners } from './events';
import { registerActionListeners } from './actions';
import { registerViewListeners } from './views';

/**
 * What listeners may use of the runtime: everything but the database, which they reach through
 * commands; only the records of Slack itself are theirs to read: deliveries already handled,
 * which thread is which task's, and which of Slack's surfaces the workspace refused (the Home's).
 */
export type ListenerRuntime = Omit<Runtime, 'db'> & DeliverySource & TaskThreadSource & Pick<HomePublisher, 'db'>;

export interface ListenerDeps {
  runtime: ListenerRuntime;
  /** Slack's AI surfaces (streaming, status, assistant panel, agent sessions, feedback) and their fallbacks. */
  surfaces: AiSurfaces;
}

/** Every Slack listener, registered in the layout of Slack's bolt-ts templates. */
export function registerListeners(app: App, deps: ListenerDeps): () => void {
  registerCommandListeners(app, deps);
  const stopEvents = registerEventListeners(app, deps);
  registerActionListeners(app, deps);
  registerViewListeners(app, deps);
  return stopEvents;
}
