import type { EntityMetadata } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { CommandHandler } from '../commands/handler';
import type { ArgsOf, CommandOutcome } from '../commands/catalog';
import type { CommandName, CommandNamed } from '../commands/index';
import type { Database } from '../db/database';
import type { EventRecord } from '../db/repositories/events';
import type { EventLog } from '../orchestrator/events';
import { OPENS_THREAD, progressReply, ROOT_CHANGING, threadReply, threadRoot, type RootFacts } from './blocks/cards-thread';
import { fallbackOf, type Rendered } from './blocks/common';
import { md } from './blocks/text';
import { markdownToMrkdwn } from './mrkdwn';
import { linkSourceThread, type SourcedTask, tellSourceThreadOutcome } from './source-thread';
import { slackFeaturesFor } from './ai-surfaces/features';
import { TaskSessions } from './ai-surfaces/task-sessions';
import { TaskRooms } from './rooms/task-rooms';
import { PlanMessages } from './plan-messages';
import { PlanCanvases } from './rooms/plan-canvas';
import { OverlapWarnings } from './overlap-warnings';
import { TaskWorkObjects } from './task-work-objects';
import { taskEntityOf, taskEntityUrl } from './blocks/work-object';
import { prChecksWords } from './blocks/merge-train-checks';

const PROGRESS_INTERVAL_MS = 3000;

type TaskOutcome = CommandOutcome<CommandNamed<'get_task'>>;
/** How many waiting tasks' cards a landing redraws (the rest show their place on their own next change). */
const TRAIN_CARDS_REDRAWN = 20;

/** The events that end a task, told in the thread it was asked for in. */
const SOURCE_TOLD = new Set(['task_completed', 'task_failed', 'task_blocked', 'task_stopped', 'task_skipped']);

/** What the notifier needs from the process (the Runtime has all of it). */
export interface NotifierSource {
  handler: Pick<CommandHandler, 'execute'>;
  events: Pick<EventLog, 'subscribe' | 'emit'>;
  db: Pick<Database, 'taskThreads' | 'state' | 'taskRooms'>;
  config: { slack: { notifyChannel?: string | null; publicUrl?: string | null } };
}

type Thread = { channelId: string; threadTs: string };

/**
 * Tells a project's channel what its tasks do, one thread per task: the root message is the
 * task's card, updated in place as it moves; progress, outcomes and notices are replies in the
 * thread, in the order they happened. A retried or recovered task continues its thread. Slack
 * errors are logged, never thrown.
 */
export class SlackNotifier {
  private readonly progress = new Map<string, { lines: string[]; timer: NodeJS.Timeout }>();
  private queue: Promise<void> = Promise.resolve();
  /** Each task thread as a Slack agent session, where the workspace offers them. */
  private readonly sessions: TaskSessions;
  /** Each task's room (code channel), where the project wants one and the workspace offers them. */
  private readonly rooms: TaskRooms;
  /** Each plan an agent wrote, as a plan block (or list) in its task's thread and room. */
  private readonly plans: PlanMessages;
  private readonly overlaps: OverlapWarnings;
  /** Each task's card as a Slack Work Object, where the workspace takes them. */
  private readonly workObjects: TaskWorkObjects;

  constructor(
    private readonly source: NotifierSource,
    private readonly client: WebClient,
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {
    const features = slackFeaturesFor(source.db.state, log);
    this.sessions = new TaskSessions(client, features, log);
    this.rooms = new TaskRooms(source, client, features, log);
    this.plans = new PlanMessages(source, client, features, new PlanCanvases(source, features, log), log);
    this.overlaps = new OverlapWarnings(client, source.db);
    this.workObjects = new TaskWorkObjects(client, features);
  }

  start(): () => void {
    const unsubscribe = this.source.events.subscribe((event) => {
      if (event.type === 'task_progress' && event.taskId) return this.bufferProgress(event.taskId, String(event.payload.text ?? ''));
      this.enqueue(() => this.handle(event), event.type);
    });
    return () => {
      unsubscribe();
      for (const [taskId, entry] of this.progress) {
        clearTimeout(entry.timer);
        this.enqueue(() => this.flushProgress(taskId), 'task_progress');
      }
    };
  }

  /** Resolves when everything queued so far has been posted. */
  async idle(): Promise<void> {
    await this.queue;
  }

  private enqueue(work: () => Promise<void>, what: string): void {
    this.queue = this.queue.then(work).catch((err) => this.log(`Slack notification failed for ${what}: ${slackError(err)}`));
  }

  private async execute<N extends CommandName>(name: N, args: ArgsOf<CommandNamed<N>>): Promise<CommandOutcome<CommandNamed<N>>> {
    return this.source.handler.execute(name, args, { source: 'system' });
  }

  private async channelFor(projectId: string | null): Promise<string | null> {
    const fallback = this.source.config.slack.notifyChannel ?? null;
    if (!projectId) return fallback;
    const linked = await this.execute('get_project_channels', { project_id: projectId });
    return !('error' in linked) && linked.channel_id ? linked.channel_id : fallback;
  }

  private async handle(event: EventRecord): Promise<void> {
    if (event.type === 'daemon_restart') {
      const channel = this.source.config.slack.notifyChannel;
      if (channel) await this.client.chat.postMessage({ channel, text: markdownToMrkdwn(String(event.payload.message ?? 'Restarting')) });
      return;
    }
    if (event.type === 'hook_run_completed' || event.type === 'hook_run_failed') return this.postHookResult(event);
    if (event.type === 'budget_warning') return this.postBudgetWarning(event);
    if (event.type === 'automation_paused') return this.postAutomationPaused(event);
    if (event.type === 'overlap_detected' || event.type === 'overlap_cleared') return this.overlaps.handle(event);
    if (!event.taskId) return;
    const taskId = event.taskId;
    // Progress the agent reported before this event is posted before it (once the thread is open).
    await this.flushProgress(taskId, { untilThreadOpens: true });
    let thread = await this.source.db.taskThreads.get(taskId);
    const again = thread !== null;
    if (!thread && OPENS_THREAD.has(event.type)) {
      thread = await this.openThread(taskId, event);
      if (thread) await this.flushProgress(taskId);
    }
    await this.plans.follow(event, thread);
    if (!thread) return;
    // The task as the root card drew it, so the source thread's line needs no second read.
    const task = again && ROOT_CHANGING.has(event.type) ? await this.updateRoot(taskId, thread, event) : undefined;
    // A plan is its own message (plans.follow), updated as its steps move.
    const post = event.type === 'plan_tasks_created' ? null : threadReply(event, again);
    if (post) await this.replyIn(thread, post);
    await this.tellSource(taskId, thread, event, task);
    await this.sessions.follow(thread, event, typeof event.payload.title === 'string' ? event.payload.title : taskId);
    await this.rooms.follow(event, thread);
    if (event.type === 'landed') await this.redrawTrain(event);
  }

  /** Posts the task's card as the root of its thread and remembers where it is. */
  private async openThread(taskId: string, event: EventRecord): Promise<Thread | null> {
    const channel = await this.channelFor(event.projectId);
    if (!channel) return null;
    const { root, entity, task } = await this.rootCard(taskId, event, channel);
    const posted = await this.workObjects.post({ channel, text: root.text, blocks: root.blocks }, entity);
    if (!posted.ts) return null;
    await this.source.db.taskThreads.save(taskId, channel, posted.ts);
    await this.linkSource(taskId, { channelId: channel, threadTs: posted.ts }, task);
    return { channelId: channel, threadTs: posted.ts };
  }

  /** A task asked for in another thread says there how it ended. */
  private async tellSource(taskId: string, thread: Thread, event: EventRecord, task?: TaskOutcome): Promise<void> {
    if (!SOURCE_TOLD.has(event.type)) return;
    const sourced = await this.sourcedTask(taskId, task);
    if (!sourced) return;
    await tellSourceThreadOutcome(this.client, sourced, thread, event).catch((err) =>
      this.log(`Could not tell the thread task ${taskId} was asked for in how it ended: ${slackError(err)}`),
    );
  }

  /** A task asked for in another thread says there where its own thread now is. */
  private async linkSource(taskId: string, thread: Thread, task: TaskOutcome): Promise<void> {
    const sourced = await this.sourcedTask(taskId, task);
    if (!sourced) return;
    await linkSourceThread(this.client, sourced, thread).catch((err) =>
      this.log(`Could not link task ${taskId} from the thread it was asked for in: ${slackError(err)}`),
    );
  }

  /** The task (read now unless `known`) with the link to where it was asked for, or null when it has none (or is gone). */
  private async sourcedTask(taskId: string, known?: TaskOutcome): Promise<SourcedTask | null> {
    const task = known ?? (await this.execute('get_task', { task_id: taskId }));
    if ('error' in task || !task.source_url) return null;
    return { id: taskId, title: task.title, sourceUrl: task.source_url };
  }

  /** Redraws the root card; returns the task as it drew it. */
  private async updateRoot(taskId: string, thread: Thread, event: EventRecord): Promise<TaskOutcome> {
    const { root, entity, task } = await this.rootCard(taskId, event, thread.channelId);
    await this.workObjects.update({ channel: thread.channelId, ts: thread.threadTs, text: root.text, blocks: root.blocks }, entity);
    return task;
  }

  /** The root card of a task's thread in `channel`, and its Work Object (none once the task is deleted). */
  private async rootCard(
    taskId: string,
    event: EventRecord,
    channel: string,
  ): Promise<{ root: Rendered; entity: EntityMetadata | null; task: TaskOutcome }> {
    const task = await this.execute('get_task', { task_id: taskId });
    const entity = 'error' in task ? null : taskEntityOf(task, taskEntityUrl(taskId, channel, this.source.config.slack.publicUrl));
    return { root: threadRoot(this.rootFacts(taskId, event, task)), entity, task };
  }

  /** The task as it is now (the event fills in what a deleted task can no longer say). */
  private rootFacts(taskId: string, event: EventRecord, task: TaskOutcome): RootFacts {
    const p = event.payload as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
    if ('error' in task) {
      return {
        id: taskId,
        title: text(p.title) ?? taskId,
        projectId: event.projectId ?? '',
        status: 'DELETED',
        agent: null,
        branch: null,
        prUrl: null,
        retries: null,
        tokens: null,
        costUsd: null,
        deleted: true,
      };
    }
    return {
      id: taskId,
      title: task.title,
      projectId: task.project_id,
      status: task.status,
      agent: task.assigned_agent || text(p.agent_name),
      branch: task.branch || text(p.branch),
      prUrl: task.pr_url || text(p.pr_url),
      retries: `${task.retry_count} of ${task.max_retries}`,
      tokens: task.tokens || null,
      costUsd: task.cost_usd || null,
      train: task.merge_queue ?? null,
      checks: prChecksWords(task.pr_checks),
    };
  }

  /** A landing moves everyone behind it up: the cards of the tasks still in the project's trains show their new places. */
  private async redrawTrain(landed: EventRecord): Promise<void> {
    if (!landed.projectId) return;
    const queue = await this.execute('get_merge_queue', { project_id: landed.projectId, limit: TRAIN_CARDS_REDRAWN });
    if ('error' in queue) return;
    for (const entry of queue.entries) {
      const thread = await this.source.db.taskThreads.get(entry.task_id);
      // Its own event's payload would lend it another task's facts: an empty one.
      if (thread) await this.updateRoot(entry.task_id, thread, { ...landed, taskId: entry.task_id, payload: { title: entry.title } });
    }
  }

  private async replyIn(thread: Thread, post: Rendered): Promise<void> {
    await this.client.chat.postMessage({ channel: thread.channelId, thread_ts: thread.threadTs, text: post.text, blocks: post.blocks });
  }

  /**
   * A hook's result goes in the thread of the task it is about (a hook an event about a task
   * started); otherwise in the hook's own thread in the project's channel, whose root is the
   * hook's first result there, so a periodic hook does not fill the channel.
   */
  private async postHookResult(event: EventRecord): Promise<void> {
    const post = hookResult(event);
    const taskThread = event.taskId ? await this.source.db.taskThreads.get(event.taskId) : null;
    if (taskThread) return this.replyIn(taskThread, post);
    const channel = await this.channelFor(event.projectId);
    if (!channel) return;
    const key = hookThreadKey(String(event.payload.hook_id ?? event.payload.hook_name));
    const thread = await this.source.db.state.get<Thread | null>(key, null);
    if (thread?.channelId === channel) return this.replyIn(thread, post);
    const posted = await this.client.chat.postMessage({ channel, text: post.text, blocks: post.blocks });
    if (posted.ts) await this.source.db.state.set(key, { channelId: channel, threadTs: posted.ts } satisfies Thread);
  }

  /** A budget level reached: once per level per window, in the project's channel (or the notify channel). */
  private async postBudgetWarning(event: EventRecord): Promise<void> {
    const channel = await this.channelFor(event.projectId);
    if (!channel) return;
    const p = event.payload as Record<string, unknown>;
    const spent = Number(p.level) >= 100;
    const message = String(p.message ?? `A budget reached ${String(p.level)}%.`);
    const heading = spent ? md`🛑 *Budget spent: new tasks wait.* ${message}` : md`⚠️ *Budget at ${String(p.level)}%.* ${message}`;
    await this.client.chat.postMessage({
      channel,
      text: fallbackOf(`${spent ? '🛑' : '⚠️'} ${message}`),
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: heading.text } }],
    });
  }

  /** An automation that paused itself (or was paused) says so in its project's channel. */
  private async postAutomationPaused(event: EventRecord): Promise<void> {
    const channel = await this.channelFor(event.projectId);
    if (!channel) return;
    const p = event.payload as Record<string, unknown>;
    const name = String(p.name ?? p.automation_id ?? 'An automation');
    const reason = String(p.reason ?? '');
    const heading = md`⏸️ *Automation ${name} is paused.* ${reason}`;
    await this.client.chat.postMessage({
      channel,
      text: fallbackOf(`⏸️ Automation ${name} is paused. ${reason}`),
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: heading.text } }],
    });
  }

  private bufferProgress(taskId: string, text: string): void {
    const entry = this.progress.get(taskId);
    if (entry) {
      entry.lines.push(text);
      return;
    }
    const timer = setTimeout(() => this.enqueue(() => this.flushProgress(taskId), 'task_progress'), PROGRESS_INTERVAL_MS);
    timer.unref();
    this.progress.set(taskId, { lines: [text], timer });
  }

  /**
   * Posts the progress buffered for a task (if any) in its thread. With `untilThreadOpens`, progress
   * of a task whose thread is not open yet stays buffered for the event about to open it (its own
   * timer still drops it if none does), instead of being lost when events queue up.
   */
  private async flushProgress(taskId: string, options: { untilThreadOpens?: boolean } = {}): Promise<void> {
    const entry = this.progress.get(taskId);
    if (!entry) return;
    const thread = await this.source.db.taskThreads.get(taskId);
    if (!thread && options.untilThreadOpens) return;
    clearTimeout(entry.timer);
    this.progress.delete(taskId);
    const lines = entry.lines.flatMap((l) => l.split('\n')).filter((l) => l.trim());
    if (!thread || lines.length === 0) return;
    const task = await this.execute('get_task', { task_id: taskId });
    await this.replyIn(thread, progressReply('error' in task ? taskId : String(task.title), lines));
    await this.rooms.afterTurn(taskId);
  }
}

/** Where a hook's thread is kept (system state: every process posting for the hook finds it). */
function hookThreadKey(hookId: string): string {
  return `slack_hook_thread:${hookId}`;
}

/** A hook run's outcome: its name, whether it ran, and the model's answer. */
function hookResult(event: EventRecord): Rendered {
  const p = event.payload as Record<string, unknown>;
  const ok = event.type === 'hook_run_completed';
  const name = p.hook_name ?? p.hook_id;
  const tokens = p.tokens_used ? md` · ${String(p.tokens_used)} tokens` : md``;
  const heading = md`🪝 Hook *${String(name)}* ${ok ? 'ran' : 'failed'}${tokens}`;
  const response = typeof p.response === 'string' && p.response ? markdownToMrkdwn(p.response) : '';
  return {
    text: fallbackOf(`🪝 Hook ${String(name)} ${ok ? 'ran' : 'failed'}`),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: heading.text } },
      ...(response ? [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: response.slice(0, 3000) } }] : []),
    ],
  };
}

function slackError(err: unknown): string {
  return (err as { data?: { error?: string } }).data?.error ?? String(err);
}
