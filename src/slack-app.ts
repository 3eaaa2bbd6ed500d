import { App, LogLevel, type AppOptions } from '@slack/bolt';
import type { Runtime } from './runtime';
import { registerListeners } from '../listeners';
import { createAiSurfaces } from './slack/ai-surfaces';
import { webhookRoute } from './webhook-route';
import { taskLinkRoute } from './task-link-route';

export interface SlackAppOptions {
  logLevel?: LogLevel;
  /** Extra Web API client options (tests: loopback URL, no retries). */
  clientOptions?: AppOptions['clientOptions'];
  /** Where the app's own messages go (standard error by default). */
  log?: (message: string) => void;
}

/** The Bolt app for this runtime: Socket Mode with an app token, HTTP with a signing secret. */
export function createSlackApp(runtime: Runtime, options: SlackAppOptions = {}): { app: App; stopListeners: () => Promise<void> } {
  const { slack } = runtime.config;
  const clientOptions = {
    ...(slack.apiUrl && { slackApiUrl: slack.apiUrl }),
    ...options.clientOptions,
  };
  const app = new App({
    token: slack.botToken,
    ...(slack.appToken ? { appToken: slack.appToken, socketMode: true } : { signingSecret: slack.signingSecret }),
    // Inbound automation webhooks and task links: on the HTTP receiver, or in Socket Mode on a port of their own.
    ...((!slack.appToken || slack.webhookPort !== undefined) && {
      customRoutes: [webhookRoute(runtime), ...(slack.publicUrl ? [taskLinkRoute(runtime, slack.publicUrl)] : [])],
    }),
    ...(slack.appToken && slack.webhookPort !== undefined && { installerOptions: { port: slack.webhookPort } }),
    logLevel: options.logLevel ?? LogLevel.WARN,
    clientOptions,
    deferInitialization: true,
  });
  const surfaces = createAiSurfaces(runtime, options.log ?? ((m) => console.error(m)));
  const stop = registerListeners(app, { runtime, surfaces });
  // Replies being written finish before the runtime (and its database) closes.
  const stopListeners = async () => {
    stop();
    await surfaces.idle();
  };
  return { app, stopListeners };
}
