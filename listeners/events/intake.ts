import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { ListenerDeps, ListenerRuntime } from '../index';
import { triageIntakeMessage } from '../../src/chat/intake-triage';
import { firstDelivery } from '../../src/slack/slack-events';
import { permalinkOf } from '../../src/slack/source-thread';
import { proposalMessage, triageFailedMessage } from '../../src/slack/blocks/intake-proposal';
import { md } from '../../src/slack/blocks/text';
import type { ChannelMessage } from '../../src/slack/task-thread-replies';

const log = (message: string) => console.error(message);
const EYES = 'eyes';

/** A message to triage: posted in an intake channel, or one someone reacted to there. */
interface IntakeCandidate {
  channel: string;
  ts: string;
  userId: string;
  text?: string;
  reaction?: string;
  eventId?: string;
}

/** A top-level message by a person (not an edit, a bot, a thread reply, or a mention of the app). */
export function intakeCandidateOf(m: ChannelMessage, botUserId?: string): IntakeCandidate | null {
  if (m.subtype || m.bot_id || !m.user || !m.text) return null;
  if (m.thread_ts && m.thread_ts !== m.ts) return null;
  if (botUserId && m.text.includes(`<@${botUserId}>`)) return null;
  return { channel: m.channel, ts: m.ts, userId: m.user, text: m.text };
}

async function say(client: WebClient, c: IntakeCandidate, message: { text: string; blocks?: unknown[] }): Promise<void> {
  await client.chat.postMessage({ channel: c.channel, thread_ts: c.ts, ...message } as Parameters<WebClient['chat']['postMessage']>[0]);
}

async function textOf(client: WebClient, channel: string, ts: string): Promise<{ text: string; userId: string } | null> {
  const answer = await client.conversations.history({ channel, latest: ts, inclusive: true, limit: 1 });
  const m = answer.messages?.[0];
  if (!m || m.ts !== ts || !m.text || !m.user || m.bot_id) return null;
  return { text: m.text, userId: m.user };
}

/**
 * Triage of one candidate: the intake's filters first (a channel without intake stops here,
 * before anything is read or kept), 👀 while the model decides, then a proposal with buttons, a
 * created task, a link to the task it repeats, or nothing at all for chatter.
 */
export async function triageCandidate(runtime: ListenerRuntime, client: WebClient, candidate: IntakeCandidate): Promise<void> {
  const reporter = { source: 'slack' as const, userId: candidate.userId, channelId: candidate.channel };
  const match = await runtime.handler.execute(
    'match_intake',
    {
      channel_id: candidate.channel,
      user_id: candidate.userId,
      ...(candidate.text !== undefined && { text: candidate.text }),
      ...(candidate.reaction && { reaction: candidate.reaction }),
    },
    reporter,
  );
  if ('error' in match || !match.automation_id || !runtime.chatProvider) return;
  if (!(await firstDelivery(runtime, candidate.eventId))) return;
  let c = candidate;
  if (c.text === undefined) {
    const read = await textOf(client, c.channel, c.ts);
    if (!read) return;
    c = { ...c, ...read };
    if (match.needs_pattern_check) {
      const again = await runtime.handler.execute(
        'match_intake',
        {
          channel_id: c.channel,
          user_id: c.userId,
          text: c.text,
          ...(c.reaction && { reaction: c.reaction }),
        },
        reporter,
      );
      // A reaction intake's pattern: the text is read only now, so it is checked now.
      if ('error' in again || (again.automation_id === null && !again.skipped)) return;
    }
  }
  const automationId = match.automation_id;
  await client.reactions.add({ channel: c.channel, timestamp: c.ts, name: EYES }).catch(() => undefined);
  try {
    const verdict = await triageIntakeMessage(
      { provider: runtime.chatProvider, handler: runtime.handler },
      { projectId: match.project_id, text: c.text ?? '', actor: reporter },
    );
    if (verdict.verdict === 'noise') {
      await runtime.handler.execute(
        'log_intake_triage',
        { automation_id: automationId, outcome: 'skipped', reason: `Not work for the queue (${verdict.kind}).` },
        reporter,
      );
      return;
    }
    if (verdict.verdict === 'duplicate') {
      await runtime.handler.execute(
        'log_intake_triage',
        { automation_id: automationId, outcome: 'linked', reason: 'A repeated report of an open or recent task.', task_id: verdict.taskId },
        reporter,
      );
      const text = md`🔗 This looks like task \`${verdict.taskId}\` *${verdict.title}*, already in the queue; follow it there instead of a second task.`;
      await say(client, c, { text: text.text });
      return;
    }
    const sourceUrl = (await permalinkOf(client, c.channel, c.ts)) ?? undefined;
    if (match.policy === 'create') {
      const created = await runtime.handler.execute(
        'create_intake_task',
        {
          automation_id: automationId,
          title: verdict.title,
          description: verdict.description,
          ...(verdict.priority !== undefined && { priority: verdict.priority }),
          reporter: c.userId,
          source_channel_id: c.channel,
          source_thread_ts: c.ts,
        },
        { ...reporter, ...(sourceUrl && { sourceUrl }) },
      );
      const text =
        'error' in created
          ? md`:warning: ${created.error}`
          : md`✅ Queued task \`${created.created}\` *${verdict.title}* in *${created.project_id}*. Its progress and outcome show up in this thread.`;
      await say(client, c, { text: text.text });
      return;
    }
    const logged = await runtime.handler.execute(
      'log_intake_triage',
      { automation_id: automationId, outcome: 'proposed', reason: `Proposed a ${verdict.kind} task; waiting for Create or Dismiss.` },
      reporter,
    );
    const runId = 'error' in logged ? null : logged.run_id;
    await say(
      client,
      c,
      proposalMessage({
        automationId,
        projectId: match.project_id,
        reporter: c.userId,
        title: verdict.title,
        description: verdict.description,
        ...(verdict.priority !== undefined && { priority: verdict.priority }),
        ...(sourceUrl && { sourceUrl }),
        report: { channel: c.channel, ts: c.ts },
        ...(runId !== null && { runId }),
      }),
    );
  } catch (err) {
    log(`Intake triage of ${c.channel}/${c.ts} failed: ${String(err)}`);
    await say(
      client,
      c,
      triageFailedMessage({ channel: c.channel, ts: c.ts, userId: c.userId, ...(c.reaction && { reaction: c.reaction }) }),
    ).catch(() => undefined);
  } finally {
    await client.reactions.remove({ channel: c.channel, timestamp: c.ts, name: EYES }).catch(() => undefined);
  }
}

/** reaction_added: a reaction an intake listens for, added to a message in its channel. */
export function registerIntakeReactions(app: App, { runtime }: ListenerDeps): void {
  app.event('reaction_added', async ({ event, body, client }) => {
    if (event.item.type !== 'message' || event.reaction === EYES) return;
    const candidate: IntakeCandidate = {
      channel: event.item.channel,
      ts: event.item.ts,
      userId: event.item_user ?? event.user,
      reaction: event.reaction,
      eventId: (body as { event_id?: string }).event_id,
    };
    void triageCandidate(runtime, client, candidate).catch((err) => log(`A reaction was not triaged: ${String(err)}`));
  });
}
