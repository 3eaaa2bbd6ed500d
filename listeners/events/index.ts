import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { answerChat, withoutMentions } from './chat-message';
import { registerAppHome } from './app-home';

/** Mentions and direct messages go to the chat agent; the bot's own messages and edits are ignored. */
export function registerEventListeners(app: App, { runtime }: ListenerDeps): () => void {
  const stopHome = registerAppHome(app, runtime);
  app.event('app_mention', async ({ event, body, client }) => {
    if (event.bot_id || !event.user) return;
    void answerChat(runtime, client, {
      channel: event.channel,
      threadTs: event.thread_ts ?? event.ts,
      text: withoutMentions(event.text),
      userId: event.user,
      eventId: (body as { event_id?: string }).event_id,
    });
  });

  app.message(async ({ message, body, client }) => {
    const m = message as {
      channel_type?: string;
      subtype?: string;
      bot_id?: string;
      user?: string;
      text?: string;
      channel: string;
      ts: string;
      thread_ts?: string;
    };
    if (m.channel_type !== 'im' || m.subtype || m.bot_id || !m.user || !m.text) return;
    void answerChat(runtime, client, {
      channel: m.channel,
      threadTs: m.thread_ts ?? m.ts,
      text: m.text,
      userId: m.user,
      eventId: (body as { event_id?: string }).event_id,
    });
  });
  return stopHome;
}
