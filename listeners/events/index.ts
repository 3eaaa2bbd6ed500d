import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { answerChat, withoutMentions } from './chat-message';
import { registerAppHome } from './app-home';
import { registerAssistant } from './assistant';
import { registerAgentSessionStop } from './agent-session';

/** Mentions and direct messages go to the chat agent; the bot's own messages and edits are ignored. */
export function registerEventListeners(app: App, deps: ListenerDeps): () => void {
  const { runtime, surfaces } = deps;
  const stopHome = registerAppHome(app, runtime);
  // Bolt's Assistant is middleware: messages in DM threads (the assistant panel's) reach it, not app.message.
  registerAssistant(app, deps);
  registerAgentSessionStop(app, deps);
  app.event('app_mention', async ({ event, body, client }) => {
    if (event.bot_id || !event.user) return;
    void answerChat(
      runtime,
      client,
      {
        channel: event.channel,
        threadTs: event.thread_ts ?? event.ts,
        text: withoutMentions(event.text),
        userId: event.user,
        teamId: (body as { team_id?: string }).team_id,
        eventId: (body as { event_id?: string }).event_id,
      },
      surfaces,
    );
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
    void answerChat(
      runtime,
      client,
      {
        channel: m.channel,
        threadTs: m.thread_ts ?? m.ts,
        text: m.text,
        userId: m.user,
        teamId: (body as { team_id?: string }).team_id,
        eventId: (body as { event_id?: string }).event_id,
      },
      surfaces,
    );
  });
  return stopHome;
}
