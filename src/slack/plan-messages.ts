import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { CommandHandler } from '../commands/handler';
import type { Database } from '../db/database';
import type { EventRecord } from '../db/repositories/events';
import type { SlackFeatures } from './ai-surfaces/features';
import { planBlockMessage, planListMessage, type PlanView } from './blocks/plan-block';
import type { Rendered } from './blocks/common';
import { canvasInvite } from './blocks/plan-canvas-edits';
import type { PlanCanvases } from './rooms/plan-canvas';

/** What plan messages need from the process (the Runtime has all of it). */
export interface PlanMessageSource {
  handler: Pick<CommandHandler, 'execute'>;
  db: Pick<Database, 'state'>;
}

type Thread = { channelId: string; threadTs: string };
/** One posted plan message, and whether it is the plan block (else the list). */
type Posted = { channelId: string; ts: string; native: boolean };
/** Where a plan's messages are (its task's thread, its room) and what they show now. */
interface StoredPlanMessages {
  messages: Posted[];
  hash: string;
}

/** Events of a step's task after which its card may show another status (or the plan other steps). */
const TICKS = new Set([
  'task_started',
  'task_completed',
  'task_failed',
  'task_blocked',
  'task_skipped',
  'task_retrying',
  'task_restarted',
  'task_stopped',
  'task_status_forced',
  'task_awaiting_approval',
  'task_paused',
  'task_resumed',
  'task_unblocked',
  'task_updated',
  'task_created',
]);

/** Slack answers this to a block it does not know: for the plan block, the workspace does not offer it. */
const BLOCK_REFUSALS = ['invalid_blocks', 'invalid_blocks_format'];

/** Slack's answers to chat.update that mean the message can never be updated again. */
const GONE = new Set(['is_archived', 'channel_not_found', 'message_not_found', 'cant_update_message']);

function storeKey(taskId: string): string {
  return `slack_plan_messages:${taskId}`;
}

/**
 * A plan the agent wrote, as one message in its task's thread (and room): Slack's plan block with
 * a task card a step, or, where the workspace refuses the block, the list of steps; updated in
 * place (chat.update) as the steps' tasks move. Slack errors are logged, never thrown.
 */
export class PlanMessages {
  constructor(
    private readonly source: PlanMessageSource,
    private readonly client: WebClient,
    private readonly features: SlackFeatures,
    private readonly canvases: PlanCanvases,
    private readonly log: (message: string) => void,
  ) {}

  /** Follows one event; `thread` is the event's task's thread, when it has one. */
  async follow(event: EventRecord, thread: Thread | null): Promise<void> {
    if (!event.taskId) return;
    try {
      if (event.type === 'plan_tasks_created') await this.post(event, event.taskId, thread);
      else if (TICKS.has(event.type)) await this.tick(event.taskId);
      // A plan revised elsewhere (revise_plan from aq or the model): its canvas shows it as it is now.
      if (event.type === 'task_updated' && (event.payload.fields as unknown[] | undefined)?.includes('plan'))
        await this.canvases.write(this.client, event.taskId);
    } catch (err) {
      this.log(`The plan message of task ${event.taskId} was not updated after ${event.type}: ${slackError(err)}`);
    }
  }

  /** The plan as it stands (the event's list when the steps are not readable, e.g. already deleted). */
  private async plan(taskId: string, event?: EventRecord): Promise<PlanView | null> {
    const plan = await this.source.handler.execute('get_plan', { task_id: taskId }, { source: 'system' });
    if (!('error' in plan) && plan.steps.length > 0) return { taskId: plan.task_id, title: plan.title, steps: plan.steps };
    const listed = Array.isArray(event?.payload.tasks) ? (event.payload.tasks as Array<{ id: string; title: string }>) : [];
    if (listed.length === 0) return null;
    const title = 'error' in plan ? String(event?.payload.title ?? taskId) : plan.title;
    return { taskId, title, steps: listed.map((t) => ({ id: String(t.id), title: String(t.title), status: 'DEFINED' })) };
  }

  private async post(event: EventRecord, taskId: string, thread: Thread | null): Promise<void> {
    if (!thread) return;
    const known = await this.source.db.state.get<StoredPlanMessages | null>(storeKey(taskId), null);
    if (known) return this.tick(taskId);
    const plan = await this.plan(taskId, event);
    if (!plan) return;
    const messages: Posted[] = [await this.send(plan, thread.channelId, thread.threadTs)];
    const room = await this.openRoom(taskId);
    if (room) {
      const inRoom = await this.send(plan, room).catch((err) => {
        this.log(`The plan of task ${taskId} was not posted in its room: ${slackError(err)}`);
        return null;
      });
      if (inRoom) messages.push(inRoom);
      await this.openCanvas(taskId, room);
    }
    await this.source.db.state.set(storeKey(taskId), { messages, hash: hashOf(plan) } satisfies StoredPlanMessages);
  }

  /** The plan's canvas in the room, where people edit it before it is approved, and the button that reads it back. */
  private async openCanvas(taskId: string, room: string): Promise<void> {
    try {
      if (!(await this.canvases.write(this.client, taskId, room))) return;
      const invite = canvasInvite(taskId);
      await this.client.chat.postMessage({ channel: room, text: invite.text, blocks: invite.blocks });
    } catch (err) {
      this.log(`The plan canvas of task ${taskId} was not opened: ${slackError(err)}`);
    }
  }

  /** The task's room, while it is open. */
  private async openRoom(taskId: string): Promise<string | null> {
    const task = await this.source.handler.execute('get_task', { task_id: taskId }, { source: 'system' });
    if ('error' in task || task.room_archived) return null;
    return task.room_channel_id ?? null;
  }

  /** Posts the plan block where the workspace offers it, else the list. */
  private async send(plan: PlanView, channel: string, threadTs?: string): Promise<Posted> {
    const post = (m: Rendered) =>
      this.client.chat.postMessage({ channel, ...(threadTs && { thread_ts: threadTs }), text: m.text, blocks: m.blocks });
    if (await this.features.usable('plan_blocks')) {
      const tried = await this.features
        .attempt('plan_blocks', 'chat.postMessage', () => post(planBlockMessage(plan)), BLOCK_REFUSALS)
        .catch((err) => {
          this.log(`The plan block of task ${plan.taskId} was not posted (${slackError(err)}); posting its list instead.`);
          return null;
        });
      if (tried?.ok && tried.value.ts) return { channelId: channel, ts: tried.value.ts, native: true };
    }
    const posted = await post(planListMessage(plan));
    return { channelId: channel, ts: String(posted.ts), native: false };
  }

  /** Redraws the plan's messages when what they show changed. */
  private async tick(taskId: string): Promise<void> {
    const plan = await this.plan(taskId);
    if (!plan) return;
    const key = storeKey(plan.taskId);
    const stored = await this.source.db.state.get<StoredPlanMessages | null>(key, null);
    const hash = hashOf(plan);
    if (!stored || stored.hash === hash) return;
    const messages: Posted[] = [];
    for (const message of stored.messages) {
      const updated = await this.update(plan, message).catch((err) => {
        // A message in a room archived since (or deleted) is gone for good: it is not tried again.
        if (GONE.has(slackError(err))) return null;
        this.log(`A plan message of task ${plan.taskId} was not updated: ${slackError(err)}`);
        return message;
      });
      if (updated) messages.push(updated);
    }
    await this.source.db.state.set(key, { messages, hash } satisfies StoredPlanMessages);
  }

  private async update(plan: PlanView, message: Posted): Promise<Posted> {
    const update = (m: Rendered) => this.client.chat.update({ channel: message.channelId, ts: message.ts, text: m.text, blocks: m.blocks });
    if (message.native && (await this.features.usable('plan_blocks'))) {
      const tried = await this.features.attempt('plan_blocks', 'chat.update', () => update(planBlockMessage(plan)), BLOCK_REFUSALS);
      if (tried.ok) return message;
    }
    await update(planListMessage(plan));
    return { ...message, native: false };
  }
}

function hashOf(plan: PlanView): string {
  return createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 32);
}

function slackError(err: unknown): string {
  return (err as { data?: { error?: string } }).data?.error ?? String(err);
}
