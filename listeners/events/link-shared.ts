import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { unfurlTaskLinks } from '../../src/slack/task-unfurls';

/** A task link pasted in a message or the composer (`link_shared`): unfurled as the task (src/slack/task-unfurls.ts). */
export function registerLinkShared(app: App, { runtime, surfaces }: ListenerDeps): void {
  app.event('link_shared', async ({ event, client }) => {
    await unfurlTaskLinks(
      { handler: runtime.handler, client, features: surfaces.features, publicUrl: runtime.config.slack.publicUrl, log: console.error },
      event,
    );
  });
}
