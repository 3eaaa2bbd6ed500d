import { Assistant, type App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { clip } from '../../src/slack/blocks/common';
import { promptsMessage, suggestedPrompts } from '../../src/slack/ai-surfaces/prompts';
import { firstDelivery } from '../../src/slack/slack-events';
import { answerChat } from './chat-message';

const log = (m: string) => console.error(m);

/**
 * Slack's assistant panel (Bolt's Assistant): a new thread gets suggested prompts built from
 * the person's projects and the tasks that need people; a message there goes to the same chat
 * agent as a mention or DM, and the thread is titled after its first question.
 */
export function registerAssistant(app: App, { runtime, surfaces }: ListenerDeps): void {
  const { features } = surfaces;
  const execute = (name: string, args: Record<string, unknown> = {}) => runtime.handler.executeAny(name, args, { source: 'system' });
  app.assistant(
    new Assistant({
      threadStarted: async ({ event, body, client, setSuggestedPrompts }) => {
        if (!(await firstDelivery(runtime, (body as { event_id?: string }).event_id))) return;
        const thread = event.assistant_thread;
        const suggestions = await suggestedPrompts(execute, thread.context.channel_id);
        const shown = (await features.usable('assistant_panel'))
          ? await features
              .attempt('assistant_panel', 'assistant.threads.setSuggestedPrompts', () => setSuggestedPrompts(suggestions))
              .catch((err) => {
                log(`Could not set the suggested prompts: ${String(err)}`);
                return { ok: true as const, value: null };
              })
          : { ok: false as const };
        if (shown.ok) return;
        await client.chat
          .postMessage({ channel: thread.channel_id, thread_ts: thread.thread_ts, ...promptsMessage(suggestions) })
          .catch((err) => log(`Could not post the suggestions in ${thread.channel_id}: ${String(err)}`));
      },
      // The panel's channel context is not used: the thread's conversation carries what matters.
      threadContextChanged: async () => undefined,
      userMessage: async ({ message, body, client, context, setTitle }) => {
        const m = message as {
          subtype?: string;
          bot_id?: string;
          user?: string;
          text?: string;
          channel: string;
          ts: string;
          thread_ts?: string;
        };
        if (m.subtype || m.bot_id || !m.user || !m.text || !m.thread_ts) return;
        const conversationId = `${m.channel}:${m.thread_ts}`;
        if ((await features.usable('assistant_panel')) && (await surfaces.isNewConversation(conversationId))) {
          await features
            .attempt('assistant_panel', 'assistant.threads.setTitle', () => setTitle(clip(m.text ?? '', 80)))
            .catch((err) => log(`Could not title the assistant thread: ${String(err)}`));
        }
        await answerChat(
          runtime,
          client,
          {
            channel: m.channel,
            threadTs: m.thread_ts,
            text: m.text,
            userId: m.user,
            teamId: (body as { team_id?: string }).team_id,
            eventId: (body as { event_id?: string }).event_id,
            messageTs: m.ts,
            inThread: m.thread_ts !== m.ts,
            botUserId: context.botUserId,
            botId: context.botId,
          },
          surfaces,
        );
      },
    }),
  );
}
