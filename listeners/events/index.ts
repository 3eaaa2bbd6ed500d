import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { answerChat, withoutMentions } from './chat-message';
import { registerAppHome } from './app-home';
import { steerFromThread } from './thread-reply';
import { inChannel, roomMessageOf, threadReplyOf, type ChannelMessage } from '../../src/slack/task-thread-replies';
import { registerAssistant } from './assistant';
import { registerAgentSessionStop } from './agent-session';
import { registerRoomActions } from './room-actions';
import { registerEntityDetails } from './entity-details';
import { registerLinkShared } from './link-shared';
import { registerAgentMessaging } from './agent-messaging';
import { intakeCandidateOf, registerIntakeReactions, triageCandidate } from './intake';

const log = (message: string) => console.error(message);

/**
 * Mentions and direct messages go to the chat agent; a person's reply in a task's thread goes to
 * the task's agent; a new message in a channel with intake goes to triage (listeners/events/intake.ts).
 * The bot's own messages, edits, and every other channel message are ignored.
 */
export function registerEventListeners(app: App, deps: ListenerDeps): () => void {
  const { runtime, surfaces } = deps;
  const stopHome = registerAppHome(app, runtime);
  // Bolt's Assistant is middleware: messages in DM threads (the assistant panel's) reach it, not app.message.
  registerAssistant(app, deps);
  registerAgentSessionStop(app, deps);
  registerRoomActions(app, deps);
  registerEntityDetails(app, deps);
  registerLinkShared(app, deps);
  registerAgentMessaging(app);
  registerIntakeReactions(app, deps);
  app.event('app_mention', async ({ event, body, client, context }) => {
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
        messageTs: event.ts,
        inThread: Boolean(event.thread_ts && event.thread_ts !== event.ts),
        botUserId: context.botUserId,
        botId: context.botId,
      },
      surfaces,
    );
  });

  app.message(async ({ message, body, client, context }) => {
    const m = message as ChannelMessage;
    const eventId = (body as { event_id?: string }).event_id;
    if (inChannel(m)) {
      // A reply in a task's thread, or any message in a task's room, reaches the task's agent; a new
      // message anywhere else goes to the channel's intake, if it has one, and is otherwise left unread.
      const reply = threadReplyOf(m, context.botUserId) ?? roomMessageOf(m, context.botUserId);
      const candidate = intakeCandidateOf(m, context.botUserId);
      if (reply || candidate)
        void (async () => {
          if (reply && (await steerFromThread(runtime, client, reply, eventId))) return;
          if (candidate) await triageCandidate(runtime, client, { ...candidate, eventId });
        })().catch((err) => log(`A channel message was not handled: ${String(err)}`));
      return;
    }
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
        eventId,
        messageTs: m.ts,
        inThread: Boolean(m.thread_ts && m.thread_ts !== m.ts),
        botUserId: context.botUserId,
        botId: context.botId,
      },
      surfaces,
    );
  });
  return stopHome;
}
