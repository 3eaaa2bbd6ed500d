import type { WebClient } from '@slack/web-api';
import type { CommandHandler } from '../../commands/handler';
import type { Database } from '../../db/database';
import type { EventRecord } from '../../db/repositories/events';
import type { EventLog } from '../../orchestrator/events';
import { fallbackOf } from '../blocks/common';
import type { Result } from '../blocks/result-types';
import type { SlackFeatures } from '../ai-surfaces/features';
import { contextBar, contextBarHash, type RoomFacts } from './room-context';
import { diffViewContent } from './room-diff';
import { ROOM_COMMANDS } from './room-commands';
import { createHash } from 'node:crypto';
import { summarizeDiff, type DiffSummary } from '../../git/diff-summary';

type TaskResult = Result<'get_task'>;

/** What the rooms need from the process (the Runtime has all of it). */
export interface TaskRoomSource {
  handler: Pick<CommandHandler, 'execute'>;
  events: Pick<EventLog, 'emit'>;
  db: Pick<Database, 'taskRooms'>;
}

type Thread = { channelId: string; threadTs: string };

/** Events after which the room's context bar and diff are brought up to date (an agent turn, a state change). */
const REFRESHES = new Set([
  'task_progress',
  'task_message_delivered',
  'task_awaiting_approval',
  'task_paused',
  'task_resumed',
  'task_retrying',
  'task_follow_up_queued',
  'pr_created',
  'merge_failed',
  'agent_request_created',
  'agent_request_answered',
]);
/** Events that end the task's work: the room is brought up to date, then archived with a summary. */
const ENDS = new Set(['task_completed', 'task_failed', 'task_blocked', 'task_stopped', 'task_skipped']);

/**
 * Each task's room (a Slack code channel): opened when the task starts (the task id is the
 * session id, so a retry or a restart gets the same room), linked from its thread, its context
 * bar and diff and pull request views kept current, archived with a summary when the task ends.
 * A workspace without code channels is noticed once (task_rooms, room_views) and the thread,
 * posted anyway, is all there is.
 */
export class TaskRooms {
  private teamUrl: string | null = null;

  constructor(
    private readonly source: TaskRoomSource,
    private readonly client: WebClient,
    private readonly features: SlackFeatures,
    private readonly log: (message: string) => void,
  ) {}

  /** Follows one event of a task whose thread is `thread`; Slack errors are logged, never thrown. */
  async follow(event: EventRecord, thread: Thread): Promise<void> {
    const taskId = event.taskId;
    if (!taskId) return;
    try {
      if (event.type === 'task_started') await this.openIfWanted(taskId, thread);
      else if (REFRESHES.has(event.type)) await this.refresh(taskId);
      else if (ENDS.has(event.type)) {
        await this.close(taskId, event.type, event.projectId);
        await this.followPlanStep(taskId);
      }
    } catch (err) {
      this.log(`The room of task ${taskId} was not updated after ${event.type}: ${slackError(err)}`);
    }
  }

  /** After an agent turn (its progress was posted): the bar and the diff as they are now. */
  async afterTurn(taskId: string): Promise<void> {
    await this.refresh(taskId).catch((err) => this.log(`The room of task ${taskId} was not updated after a turn: ${slackError(err)}`));
  }

  private async task(taskId: string): Promise<TaskResult | null> {
    const task = await this.source.handler.execute('get_task', { task_id: taskId }, { source: 'system' });
    return 'error' in task ? null : task;
  }

  /** Whether the project wants a room for this task (task_rooms: all, approval, off). */
  private async wanted(task: TaskResult): Promise<boolean> {
    const projects = await this.source.handler.execute('list_projects', { limit: 500 }, { source: 'system' });
    const list = 'error' in projects ? [] : projects.projects;
    const setting = list.find((p) => p.id === task.project_id)?.task_rooms ?? 'approval';
    return setting === 'all' || (setting === 'approval' && task.requires_approval === true);
  }

  private async openIfWanted(taskId: string, thread: Thread): Promise<void> {
    const task = await this.task(taskId);
    if (!task) return;
    const known = await this.source.db.taskRooms.get(taskId);
    if (known && !known.archivedAt) return this.refresh(taskId);
    if (!known && !(await this.wanted(task))) return;
    if (!(await this.features.usable('task_rooms'))) return;
    const created = await this.features.attempt('task_rooms', 'agents.conversations.create', () =>
      this.client.agents.conversations.create({
        name: `aq-${taskId}`.slice(0, 80),
        // Slack returns the same channel for the same session: one room per task, whatever happens.
        session_id: taskId,
        origin_channel_id: thread.channelId,
        origin_message_ts: thread.threadTs,
      }),
    );
    if (!created.ok || !created.value.channel_id) return;
    const channelId = created.value.channel_id;
    const url = await this.roomUrl(channelId);
    await this.source.db.taskRooms.save(taskId, channelId, url);
    await this.client.agents.conversations.setCommands({ channel_id: channelId, commands: ROOM_COMMANDS.map((c) => ({ ...c })) });
    if (!known) {
      await this.client.chat.postMessage({
        channel: thread.channelId,
        thread_ts: thread.threadTs,
        text: `🏠 This task has its own room: <#${channelId}>. Its diff, pull request and context are there; replies here still reach the agent.`,
      });
      await this.source.events.emit('room_opened', {
        projectId: task.project_id,
        taskId,
        payload: { title: task.title, channel_id: channelId, room_url: url },
      });
    }
    await this.refresh(taskId);
  }

  private async roomUrl(channelId: string): Promise<string | null> {
    if (this.teamUrl === null) this.teamUrl = (await this.client.auth.test().catch(() => null))?.url ?? '';
    return this.teamUrl ? `${this.teamUrl.replace(/\/?$/, '/')}archives/${channelId}` : null;
  }

  /** Brings the context bar, the diff and the pull request view up to date (each sent only when it changed). */
  private async refresh(taskId: string): Promise<void> {
    const room = await this.source.db.taskRooms.get(taskId);
    if (!room || room.archivedAt) return;
    const task = await this.task(taskId);
    if (!task) return;
    const items = contextBar(await this.facts(task));
    const hash = contextBarHash(items);
    if (hash !== room.contextHash) {
      await this.client.agents.conversations.setProperties({ channel_id: room.channelId, code_channel: { context_bar_items: items } });
      await this.source.db.taskRooms.update(taskId, { contextHash: hash });
    }
    await this.refreshViews(taskId, task, room);
  }

  private async wholeDiffStats(taskId: string): Promise<DiffSummary | undefined> {
    const stats = await this.source.handler.execute('get_task_diff', { task_id: taskId, summary: true }, { source: 'system' });
    return 'files' in stats && stats.files ? { files: stats.files, insertions: stats.insertions, deletions: stats.deletions } : undefined;
  }

  private async refreshViews(
    taskId: string,
    task: TaskResult,
    room: { channelId: string; views: string[]; diffHash: string | null },
  ): Promise<void> {
    if (!(await this.features.usable('room_views'))) return;
    const views = new Set(room.views);
    const read = await this.source.handler.execute('get_task_diff', { task_id: taskId }, { source: 'system' });
    const diff = 'diff' in read && typeof read.diff === 'string' ? read : null;
    // Once merged, the branch has nothing left against its base: the view keeps the work as it was.
    // (A task whose plan became steps is completed before its branch is merged: its view follows the steps' work.)
    const merged = task.status === 'COMPLETED' && room.diffHash !== null && diff?.diff === '(no changes)';
    if (diff && !merged) {
      // A diff the app read only the start of is counted whole by git for the view's note.
      const whole = diff.diff_cut ? await this.wholeDiffStats(taskId) : undefined;
      const content = diffViewContent(diff.diff === '(no changes)' ? '' : diff.diff, taskId, whole);
      const hash = createHash('sha256').update(content).digest('hex').slice(0, 32);
      if (hash !== room.diffHash) {
        const set = await this.features.attempt('room_views', 'agents.conversations.setView', () =>
          this.client.agents.conversations.setView({
            channel_id: room.channelId,
            type: 'diff',
            content,
            name: 'Diff',
            ...(typeof diff.base === 'string' && { base_branch: diff.base }),
            ...(typeof diff.branch === 'string' && { head_branch: diff.branch }),
          }),
        );
        if (!set.ok) return;
        views.add('diff');
        const stats = summarizeDiff(content);
        await this.source.db.taskRooms.update(taskId, {
          diffHash: hash,
          views: [...views],
          diffStats: { files: stats.files.length, insertions: stats.insertions, deletions: stats.deletions },
        });
      }
    }
    if (task.pr_url && !views.has('pull_request')) {
      await this.client.agents.conversations.setView({
        channel_id: room.channelId,
        type: 'pull_request',
        pr_url: task.pr_url,
        name: 'Pull request',
      });
      views.add('pull_request');
      await this.source.db.taskRooms.update(taskId, { views: [...views] });
    }
  }

  private async facts(task: TaskResult): Promise<RoomFacts> {
    const budget = await this.source.handler.execute('get_budget', { project_id: task.project_id }, { source: 'system' });
    return {
      repo: task.repo_id || null,
      branch: task.branch || null,
      prUrl: task.pr_url || null,
      status: task.status,
      tokens: task.tokens,
      costUsd: task.cost_usd,
      budgetTokens: 'error' in budget ? null : budget.token_limit,
    };
  }

  /**
   * The task ended: last refresh, a summary in the room shared back to the task's thread, and the
   * room archived. A task whose plan became steps completes at once, but its room stays open while
   * the steps run (its plan block ticks there); the last step to end closes it.
   */
  private async close(taskId: string, outcome: string, projectId: string | null): Promise<void> {
    const room = await this.source.db.taskRooms.get(taskId);
    if (!room || room.archivedAt) return;
    if (outcome === 'task_completed' && (await this.planOf(taskId))?.running) return this.refresh(taskId);
    await this.refresh(taskId);
    const task = await this.task(taskId);
    const summary = await this.summary(taskId, task, outcome);
    const posted = await this.client.chat.postMessage({ channel: room.channelId, text: summary });
    await this.client.agents.conversations.archive({ channel_id: room.channelId, ...(posted.ts && { summary_message_ts: posted.ts }) });
    await this.source.db.taskRooms.update(taskId, { archivedAt: new Date() });
    await this.source.events.emit('room_archived', {
      projectId,
      taskId,
      payload: { title: task ? task.title : taskId, channel_id: room.channelId, outcome },
    });
  }

  /** A plan step ended: its plan's task's room shows the branch as the steps left it, and closes once the plan is over. */
  private async followPlanStep(stepId: string): Promise<void> {
    const plan = await this.planOf(stepId);
    if (!plan || plan.ownerId === stepId) return;
    const owner = await this.task(plan.ownerId);
    if (owner?.status !== 'COMPLETED' || plan.running) return this.refresh(plan.ownerId);
    await this.close(plan.ownerId, plan.blocked ? 'task_blocked' : 'task_completed', owner.project_id);
  }

  /** The plan `taskId` made or is a step of: whose it is, and whether its steps still run (none blocked, some not done). */
  private async planOf(taskId: string): Promise<{ ownerId: string; running: boolean; blocked: boolean } | null> {
    const plan = await this.source.handler.execute('get_plan', { task_id: taskId }, { source: 'system' });
    if ('error' in plan || plan.steps.length === 0) return null;
    const blocked = plan.steps.some((s) => s.status === 'BLOCKED');
    const done = plan.steps.every((s) => s.status === 'COMPLETED' || s.skipped === true);
    return { ownerId: plan.task_id, running: !blocked && !done, blocked };
  }

  /** Outcome, files changed, PR and cost, in one message (escaped whole: the title is not ours). */
  private async summary(taskId: string, task: TaskResult | null, outcomeEvent: string): Promise<string> {
    const stats = (await this.source.db.taskRooms.get(taskId))?.diffStats;
    const files = stats
      ? `${stats.files} file${stats.files === 1 ? '' : 's'} changed (+${stats.insertions} −${stats.deletions})`
      : 'no files changed';
    const outcome = OUTCOMES[outcomeEvent] ?? outcomeEvent;
    const pr = task?.pr_url ? `PR ${task.pr_url}` : 'no PR';
    const cost = task ? `$${task.cost_usd.toFixed(2)} · ${task.tokens.toLocaleString('en-US')} tokens` : 'cost unknown';
    const title = task ? task.title : taskId;
    return fallbackOf(`🏁 ${title}: ${outcome} · ${files} · ${pr} · ${cost}`);
  }
}

const OUTCOMES: Record<string, string> = {
  task_completed: 'completed',
  task_failed: 'failed',
  task_blocked: 'blocked',
  task_stopped: 'stopped',
  task_skipped: 'skipped',
};

function slackError(err: unknown): string {
  return (err as { data?: { error?: string } }).data?.error ?? String(err);
}
