import type { WebClient } from '@slack/web-api';
import type { EventRecord } from '../../db/repositories/events';
import { clip } from '../blocks/common';
import type { SlackFeatures } from './features';

export type SessionStatus = 'processing' | 'suspended' | 'closed';

/**
 * A task's thread as a Slack agent session: processing while the agent runs (Slack then shows
 * its Stop button), suspended while the task waits (for quota, a workspace, a person's answer
 * or approval, or its turn in the queue), closed when it ended.
 */
const SESSION_STATUS: Record<string, SessionStatus> = {
  task_started: 'processing',
  task_message_delivered: 'processing',
  task_retrying: 'suspended',
  task_paused: 'suspended',
  task_waiting_workspace: 'suspended',
  task_awaiting_approval: 'suspended',
  task_restarted: 'suspended',
  task_unblocked: 'suspended',
  task_follow_up_queued: 'suspended',
  agent_request_created: 'suspended',
  agent_request_answered: 'processing',
  agent_request_timed_out: 'processing',
  task_completed: 'closed',
  task_failed: 'closed',
  task_blocked: 'closed',
  task_stopped: 'closed',
  task_skipped: 'closed',
  task_deleted: 'closed',
};

export function sessionStatusFor(eventType: string): SessionStatus | null {
  return SESSION_STATUS[eventType] ?? null;
}

/**
 * Keeps the agent session of each task thread in step with the task. Where the workspace does
 * not offer agent sessions, the thread's card and replies (posted anyway) are all there is.
 */
export class TaskSessions {
  constructor(
    private readonly client: WebClient,
    private readonly features: SlackFeatures,
    private readonly log: (message: string) => void,
  ) {}

  async follow(thread: { channelId: string; threadTs: string }, event: EventRecord, title: string): Promise<void> {
    const status = sessionStatusFor(event.type);
    if (!status || !(await this.features.usable('agent_sessions'))) return;
    try {
      await this.features.attempt('agent_sessions', 'agents.sessions.setStatus', () =>
        this.client.agents.sessions.setStatus({
          channel_id: thread.channelId,
          thread_ts: thread.threadTs,
          status,
          // Slack uses the title only when this call creates the session.
          title: clip(title || 'Agent Queue task', 200),
        }),
      );
    } catch (err) {
      this.log(`Could not set the agent session of ${event.taskId ?? 'a task'} to ${status}: ${String(err)}`);
    }
  }
}
