import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { AgentRequestKind, AgentRequestRecord } from '../db/repositories/agent-requests';
import type { TaskRecord } from '../db/repositories/tasks';
import {
  DEFAULT_TOOL_POLICY,
  type AgentQuestion,
  type AgentRequests,
  type PermissionAnswer,
  type PermissionAsk,
  type QuestionAnswer,
} from '../agents/agent-requests';
import { reportBlocked } from './completion';
import { systemClock, type Clock } from '../util/clock';
import type { EventLog } from './events';
import type { TaskStateMachine } from './state-machine';
import { cutWhole, shorten } from '../util/whole-characters';

export interface AgentRequestDeps {
  db: Database;
  events: EventLog;
  machine: TaskStateMachine;
  config: Pick<AppConfig, 'agents'>;
  log: (message: string) => void;
  /** How often a waiting run looks at its request's row (answers from other processes). */
  pollMs?: number;
  /** The time requests expire by (default: the system clock). */
  clock?: Clock;
}

/** The project's allow rules: its own when it set them, else the default policy. */
export async function effectiveToolPolicy(db: Database, projectId: string): Promise<{ rules: string[]; isDefault: boolean }> {
  const stored = await db.toolPolicies.get(projectId);
  return stored ? { rules: stored, isDefault: false } : { rules: [...DEFAULT_TOOL_POLICY], isDefault: true };
}

/** "90 seconds", "60 minutes", "2 hours": how long a request waited. */
export function waitedFor(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} minutes`;
  return `${Math.round(minutes / 60)} hours`;
}

/** A tool call as people read it: the command for Bash, else its input as JSON (bounded). */
export function callDetail(tool: string, input: Record<string, unknown>): string {
  if (tool === 'Bash' && typeof input.command === 'string') return cutWhole(input.command, 4000);
  const json = JSON.stringify(input) ?? '';
  return shorten(json, 4000);
}

type Held = { kind: 'answered'; record: AgentRequestRecord } | { kind: 'timed_out'; blocked: boolean } | { kind: 'ended' };

/**
 * Asks people on behalf of one run, through the database: the request is a row, the task goes
 * WAITING_INPUT, an event tells Slack; the run then waits on the row (woken early by the
 * answer's event in this process, and polling for answers given elsewhere) until it is
 * answered, times out, or the run ends (a stop, a shutdown).
 */
export function taskAgentRequests(deps: AgentRequestDeps, task: TaskRecord, stopRun: () => void): AgentRequests {
  const ask = deps.config.agents.ask;
  return {
    canAsk: ask.people,
    allowRules: async () => (await effectiveToolPolicy(deps.db, task.projectId)).rules,

    async askPermission(call: PermissionAsk, signal: AbortSignal): Promise<PermissionAnswer> {
      const payload = {
        tool: call.tool,
        detail: callDetail(call.tool, call.input),
        description: call.description,
        reason: call.reason,
        rule: call.rule,
      };
      const held = await hold(deps, task, 'permission', payload, signal, stopRun);
      if (held.kind === 'ended') return { decision: 'deny', message: 'The task was stopped.', by: null, stop: true };
      if (held.kind === 'timed_out') {
        return held.blocked
          ? { decision: 'deny', message: `Nobody answered within ${waitedFor(ask.timeoutMs)}; the task is blocked.`, by: null, stop: true }
          : {
              decision: 'deny',
              message: `Nobody answered this permission request within ${waitedFor(ask.timeoutMs)}, so the call was not run. Go on without it, or finish and say what you needed.`,
              by: null,
            };
      }
      const answer = held.record.answer ?? {};
      const by = held.record.answeredBy;
      if (answer.decision === 'allow' || answer.decision === 'always') return { decision: answer.decision, by };
      const reason = typeof answer.reason === 'string' && answer.reason.trim() ? answer.reason.trim() : 'no reason given';
      return { decision: 'deny', message: `A person denied this tool call: ${reason}`, by };
    },

    async askQuestions(questions: AgentQuestion[], signal: AbortSignal): Promise<QuestionAnswer> {
      const held = await hold(deps, task, 'question', { questions }, signal, stopRun);
      if (held.kind === 'ended') return { answered: false, message: 'The task was stopped.', stop: true };
      if (held.kind === 'timed_out') {
        return held.blocked
          ? { answered: false, message: `Nobody answered within ${waitedFor(ask.timeoutMs)}; the task is blocked.`, stop: true }
          : {
              answered: false,
              message: `Nobody answered within ${waitedFor(ask.timeoutMs)}. Go on with your best judgement, and say in your summary what you assumed.`,
            };
      }
      const answers = (held.record.answer?.answers ?? {}) as Record<string, string>;
      return { answered: true, answers, by: held.record.answeredBy };
    },
  };
}

async function hold(
  deps: AgentRequestDeps,
  task: TaskRecord,
  kind: AgentRequestKind,
  payload: Record<string, unknown>,
  signal: AbortSignal,
  stopRun: () => void,
): Promise<Held> {
  const { db, events, machine } = deps;
  const { timeoutMs, onTimeout } = deps.config.agents.ask;
  const record = await db.agentRequests.add({
    taskId: task.id,
    projectId: task.projectId,
    kind,
    payload,
    expiresAt: new Date((deps.clock ?? systemClock).now().getTime() + timeoutMs),
  });
  // Already WAITING_INPUT when another call of the same turn is waiting too.
  await machine.fire(task.id, 'INPUT_NEEDED', {}, { from: ['IN_PROGRESS'], quiet: true });
  await events.emit('agent_request_created', {
    projectId: task.projectId,
    taskId: task.id,
    payload: {
      request_id: record.id,
      kind,
      title: task.title,
      ...payload,
      timeout_seconds: Math.round(timeoutMs / 1000),
      on_timeout: onTimeout,
    },
  });
  const held = await waitOn(deps, record, signal);
  if (held.kind === 'ended') return held;
  if (held.kind === 'timed_out') {
    await events.emit('agent_request_timed_out', {
      projectId: task.projectId,
      taskId: task.id,
      payload: { request_id: record.id, kind, title: task.title, action: onTimeout, timeout_seconds: Math.round(timeoutMs / 1000) },
    });
    if (onTimeout === 'block') {
      const blocked = await machine.fire(task.id, 'INPUT_TIMEOUT', { assignedAgent: null }, { from: ['WAITING_INPUT'] });
      if (blocked.ok) {
        await reportBlocked(
          db,
          events,
          task,
          `Nobody answered the agent's ${kind === 'question' ? 'question' : 'permission request'} within ${waitedFor(timeoutMs)}.`,
        );
      }
      stopRun();
      return { kind: 'timed_out', blocked: true };
    }
  }
  if ((await db.agentRequests.countPending(task.id)) === 0) {
    await machine.fire(task.id, 'INPUT_RECEIVED', {}, { from: ['WAITING_INPUT'], quiet: true });
  }
  return held;
}

async function waitOn(deps: AgentRequestDeps, record: AgentRequestRecord, signal: AbortSignal): Promise<Held> {
  const { db, events } = deps;
  const pollMs = deps.pollMs ?? 500;
  const clock = deps.clock ?? systemClock;
  const expires = record.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  let wake: (() => void) | null = null;
  const unsubscribe = events.subscribe((event) => {
    if (event.type === 'agent_request_answered' && Number(event.payload.request_id) === record.id) wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal.aborted) {
        await db.agentRequests.close(record.id, 'cancelled');
        return { kind: 'ended' };
      }
      const row = await db.agentRequests.get(record.id);
      if (row?.status === 'answered') return { kind: 'answered', record: row };
      if (row?.status !== 'pending') return { kind: 'ended' };
      const task = await db.tasks.get(record.taskId);
      if (task?.status !== 'WAITING_INPUT' && task?.status !== 'IN_PROGRESS') {
        // Stopped or restarted from another process: the daemon ends the run.
        await db.agentRequests.close(record.id, 'cancelled');
        return { kind: 'ended' };
      }
      const left = expires - clock.now().getTime();
      if (left <= 0) {
        if (await db.agentRequests.close(record.id, 'timed_out')) return { kind: 'timed_out', blocked: false };
        continue; // answered at the last moment
      }
      const woken = new AbortController();
      wake = () => woken.abort();
      await clock.sleep(Math.min(pollMs, left), woken.signal);
      wake = null;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
