import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { esc } from '../../src/slack/blocks/common';
import { firstDelivery } from '../../src/slack/slack-events';

/**
 * Slack's native Stop on an agent session (`agent_session_stopped`): the task of that thread is
 * stopped through stop_task as the person who pressed it (so the admin rule applies); the task's
 * own events then close the session. A chat reply being written in that thread is cancelled.
 */
export function registerAgentSessionStop(app: App, { runtime, surfaces }: ListenerDeps): void {
  app.event('agent_session_stopped', async ({ event, body, client }) => {
    if (!(await firstDelivery(runtime, (body as { event_id?: string }).event_id))) return;
    surfaces.replies.get(`${event.channel}:${event.thread_ts}`)?.abort();
    const taskId = await surfaces.taskAtThread(event.channel, event.thread_ts);
    if (!taskId) return;
    const result = await runtime.handler.execute(
      'stop_task',
      { task_id: taskId },
      { source: 'slack', userId: event.user, channelId: event.channel },
    );
    if (!('error' in result)) return;
    await client.chat
      .postEphemeral({
        channel: event.channel,
        user: event.user,
        thread_ts: event.thread_ts,
        text: `Could not stop task \`${esc(taskId)}\`: ${esc(result.error)}`,
      })
      .catch((err) => console.error(`Could not tell ${event.user} why the stop failed: ${String(err)}`));
  });
}
