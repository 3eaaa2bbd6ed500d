import type { App } from '@slack/bolt';

/**
 * Slack's agent messaging experience (manifest `features.agent_view`): `app_context_changed` says
 * what the person is looking at while our DM is open. Each DM message carries the same context
 * (`app_context`), so there is nothing to keep: the event is acknowledged and left. (The DM opened
 * arrives as `app_home_opened` with `tab: "messages"`, which the Home's listener leaves alone: the
 * manifest's suggested prompts greet the person there.)
 */
export function registerAgentMessaging(app: App): void {
  app.event('app_context_changed', async () => undefined);
}
