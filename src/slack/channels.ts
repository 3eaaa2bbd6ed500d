import type { WebClient } from '@slack/web-api';
import type { EventRecord } from '../db/repositories/events';
import type { Runtime } from '../runtime';

/** A Slack-valid channel name for a project: `aq-<id>`, lowercase a–z 0–9 - _, at most 80 characters. */
export function channelNameFor(projectId: string, suffix = ''): string {
  const base = `aq-${projectId}`
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/-$/, '');
  return `${base.slice(0, 80 - suffix.length)}${suffix}`;
}

function slackError(err: unknown): string | undefined {
  return (err as { data?: { error?: string } }).data?.error;
}

/**
 * Creates and links `#aq-<project>` when a project asks for it, and archives the channel when a
 * deleted project asked for that.
 */
export function followProjectChannels(runtime: Runtime, client: WebClient, log: (m: string) => void): () => void {
  return runtime.events.subscribe(async (event: EventRecord) => {
    try {
      if (event.type === 'project_created' && event.payload.auto_create_channels === true && event.projectId) {
        for (let attempt = 0; attempt < 5; attempt++) {
          const name = channelNameFor(event.projectId, attempt === 0 ? '' : `-${attempt + 1}`);
          try {
            const created = await client.conversations.create({ name });
            const id = created.channel?.id;
            if (id)
              await runtime.handler.execute('set_project_channel', { project_id: event.projectId, channel_id: id }, { source: 'system' });
            return;
          } catch (err) {
            if (slackError(err) !== 'name_taken') throw err;
          }
        }
        log(`Could not create a channel for ${event.projectId}: every name tried was taken.`);
      }
      if (event.type === 'project_deleted' && event.payload.archive_channels === true && typeof event.payload.channel_id === 'string') {
        await client.conversations.archive({ channel: event.payload.channel_id });
      }
    } catch (err) {
      log(`Channel handling for ${event.type} failed: ${slackError(err) ?? String(err)}`);
    }
  });
}
