import type { App } from '@slack/bolt';
import type { ListenerRuntime } from '../index';
import { publishHome } from '../../src/slack/home';

const REFRESH_DEBOUNCE_MS = 2000;
const RECENT_VIEWER_MS = 60 * 60 * 1000;
const REFRESHING_EVENTS = /^(task_|project_|orchestrator_|agent_)/;

/** Publishes the dashboard on app_home_opened, and again (debounced) when tasks change for recent viewers. */
export function registerAppHome(app: App, runtime: ListenerRuntime): () => void {
  const viewers = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;

  const publish = (userId: string) => publishHome(app.client, runtime, userId, undefined, (m) => console.error(m));

  app.event('app_home_opened', async ({ event }) => {
    // The Messages tab (the agent messaging DM) has nothing to publish: only the Home tab does.
    if (event.tab !== 'home') return;
    viewers.set(event.user, Date.now());
    await publish(event.user);
  });

  const unsubscribe = runtime.events.subscribe((event) => {
    if (!REFRESHING_EVENTS.test(event.type) || event.type === 'task_progress' || viewers.size === 0 || timer) return;
    timer = setTimeout(() => {
      timer = null;
      const cutoff = Date.now() - RECENT_VIEWER_MS;
      for (const [user, seen] of viewers) {
        if (seen < cutoff) viewers.delete(user);
        else void publish(user);
      }
    }, REFRESH_DEBOUNCE_MS);
    timer.unref();
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
    timer = null;
  };
}
