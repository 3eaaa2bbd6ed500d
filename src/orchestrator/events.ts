import type { Database } from '../db/database';
import type { EventRecord, NewEvent } from '../db/repositories/events';
import { EventCursor } from './event-cursor';
import { errorMessage } from '../util/error-message';

/**
 * Every event the system emits, one list. Hooks with `{type: "event", event_type}` match these
 * names exactly; README documents them.
 */
export const EVENT_TYPES = [
  'project_created',
  'project_updated',
  'project_paused',
  'project_resumed',
  'project_deleted',
  'task_created',
  'task_updated',
  'task_status_forced',
  'task_started',
  'task_progress',
  'task_completed',
  'task_failed',
  'task_retrying',
  'task_blocked',
  'task_paused',
  'task_resumed',
  'task_awaiting_approval',
  'task_stopped',
  'task_skipped',
  'task_restarted',
  'task_deleted',
  'task_unblocked',
  'task_message_delivered',
  'task_follow_up_queued',
  'agent_request_created',
  'agent_request_answered',
  'agent_request_timed_out',
  'chain_stuck',
  'pr_created',
  'merge_failed',
  'plan_tasks_created',
  'plan_skipped',
  'task_waiting_workspace',
  'agent_created',
  'hook_run_completed',
  'hook_run_failed',
  'hook_run_skipped',
  'note_created',
  'note_updated',
  'note_deleted',
  'orchestrator_paused',
  'orchestrator_resumed',
  'daemon_restart',
  'budget_warning',
  'task_reconciled',
  'automation_fired',
  'automation_skipped',
  'automation_paused',
  // A task's Slack room (code channel) was opened, and archived when the task ended.
  'room_opened',
  'room_archived',
  'overlap_detected',
  'overlap_cleared',
  // A task went to an agent of another backend because the one it would have used is at its usage limit.
  'task_failover',
  // A task joined its repository's merge train (on completion, on Approve, or back after a send-back).
  'landing_queued',
  'landing_started',
  'landing_sent_back',
  'landed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EmitOptions {
  projectId?: string | null;
  taskId?: string | null;
  agentId?: string | null;
  payload?: Record<string, unknown>;
}

export type EventListener = (event: EventRecord) => void | Promise<void>;

/** Identifies this process in the `origin` column, so the daemon can tell its own events apart. */
export const PROCESS_ORIGIN = `${process.pid}:${Date.now().toString(36)}`;

/**
 * Stores events and fans them out to in-process listeners (Slack notifier, hook engine, App
 * Home). A failing listener is logged and never breaks the emitter or the other listeners.
 */
export class EventLog {
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly db: Database,
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {}

  async emit(type: EventType, options: EmitOptions = {}): Promise<EventRecord> {
    const event = await this.db.events.append(this.event(type, options));
    await this.dispatch(event);
    return event;
  }

  /**
   * The event `emit` would store, for a change that stores it in its own transaction
   * (`TaskRepository.createReported`); `dispatch` it once that committed.
   */
  event(type: EventType, options: EmitOptions = {}): NewEvent {
    return {
      type,
      projectId: options.projectId ?? null,
      taskId: options.taskId ?? null,
      agentId: options.agentId ?? null,
      payload: options.payload ?? {},
      origin: PROCESS_ORIGIN,
    };
  }

  /** Delivers an event (for example one another process stored) to the listeners. */
  async dispatch(event: EventRecord): Promise<void> {
    for (const listener of [...this.listeners]) {
      try {
        await listener(event);
      } catch (err) {
        this.log(`Event listener failed on ${event.type}: ${errorMessage(err)}`);
      }
    }
  }

  /**
   * Polls the event table for events other processes (for example `aq`) stored and delivers
   * them here, so the daemon reports them to Slack too. Returns a stop function.
   */
  followExternal(intervalMs = 1000, gapGraceMs?: number): () => void {
    let cursor: EventCursor | null = null;
    let running = false;
    const page = 200;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        if (cursor === null) {
          cursor = new EventCursor(await this.db.events.latestId(), gapGraceMs);
          return;
        }
        // From the cursor's floor, not the newest id seen: an event with a lower id may have
        // committed since (see EventCursor).
        for (let after = cursor.after; ; ) {
          const events = await this.db.events.since(after, page);
          for (const event of events) {
            if (cursor.take(event.id) && event.origin !== PROCESS_ORIGIN) await this.dispatch(event);
          }
          if (events.length < page) break;
          after = events[events.length - 1].id;
        }
        cursor.settle(Date.now());
      } catch (err) {
        this.log(`Could not read new events: ${errorMessage(err)}`);
      } finally {
        running = false;
      }
    };
    void tick();
    const timer = setInterval(() => void tick(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
