import type { Database } from '../db/database';
import type { TaskStatus } from '../db/value-sets';
import type { TaskRecord } from '../db/repositories/tasks';
import { TaskMessageRepository, type TaskMessageRecord } from '../db/repositories/task-messages';
import type { AgentInbox } from '../agents/streaming-input';
import type { EventLog } from './events';
import { statusesAccepting, type TaskStateMachine } from './state-machine';
import { TaskOperationError } from './task-errors';
import { answerAgentRequest, pendingQuestion } from './agent-request-answers';
import { announceFollowUpWait, followUpWorkspace, workspaceMoveNotice } from './follow-up-workspace';
import { cutWhole } from '../util/whole-characters';

interface Deps {
  db: Database;
  events: EventLog;
  machine: TaskStateMachine;
}

export type MessageDelivery =
  | { delivery: 'live'; messageId: number; task: TaskRecord }
  /** The agent was waiting for an answer to its question: the message is that answer. */
  | { delivery: 'answer'; requestId: number; task: TaskRecord; complete: boolean }
  | { delivery: 'follow_up'; messageId: number; task: TaskRecord; previousStatus: TaskStatus; resumesSession: boolean }
  /** The task is queued to land (approved): the message runs as its follow-up once the landing ends. */
  | { delivery: 'after_landing'; messageId: number; task: TaskRecord; place: number };

/** The statuses a message turns into a follow-up run from (the table's FOLLOW_UP rows). */
export const FOLLOW_UP_FROM: readonly TaskStatus[] = statusesAccepting('FOLLOW_UP');

const FOLLOW_UP_RESET = { retryCount: 0, assignedAgent: null, resumeAfter: null, pauseReason: null, completedAt: null } as const;

/** A follow-up goes back to the queue preferring the workspace its agent session worked in. */
function followUpReset(task: TaskRecord) {
  return { ...FOLLOW_UP_RESET, preferredWorkspaceId: followUpWorkspace(task) };
}

/**
 * A message to a task's agent. A running task gets it in its live session (the daemon's run
 * picks it up from the database); a finished one goes back to the queue, and its next run
 * resumes the agent session with the message as the instruction.
 */
export async function sendTaskMessage(
  deps: Deps,
  input: { taskId: string; text: string; author?: string | null },
): Promise<MessageDelivery> {
  const { db, events, machine } = deps;
  const task = await db.tasks.get(input.taskId);
  if (!task) throw new TaskOperationError('not_found', `Task '${input.taskId}' not found.`);
  if (task.status === 'IN_PROGRESS' || task.status === 'WAITING_INPUT') {
    const question = await pendingQuestion(db, task.id);
    if (question) {
      const answered = await answerAgentRequest(
        { db, events },
        { requestId: question.id, decision: 'answer', text: input.text, by: input.author ?? null },
      );
      return { delivery: 'answer', requestId: question.id, task, complete: answered.complete };
    }
    // Waiting on a permission: the message reaches the agent once it goes on.
    const stored = await db.taskMessages.add({ taskId: task.id, kind: 'live', text: input.text, author: input.author });
    return { delivery: 'live', messageId: stored.id, task };
  }
  if (task.status === 'READY' && (await db.taskMessages.pending(task.id, 'follow_up')).length > 0) {
    // A second reply before the follow-up starts joins it (a run that starts meanwhile takes it,
    // or leaves it for the next follow-up).
    const stored = await db.taskMessages.add({ taskId: task.id, kind: 'follow_up', text: input.text, author: input.author });
    const resumesSession = (await db.taskResults.lastSessionId(task.id)) !== null;
    return { delivery: 'follow_up', messageId: stored.id, task, previousStatus: task.status, resumesSession };
  }
  if (task.status === 'AWAITING_APPROVAL') {
    const queued = await messageAfterLanding(deps, task, input);
    if (queued) return queued;
  }
  if (!FOLLOW_UP_FROM.includes(task.status)) {
    throw new TaskOperationError(
      'wrong_status',
      `Task '${task.id}' is ${task.status}: messages reach a running task, or one that is ${FOLLOW_UP_FROM.join(', ')} (as a follow-up run). Wait until it runs or finishes.`,
    );
  }
  let stored: TaskMessageRecord | null = null;
  const moved = await db.transaction(async (tx) => {
    const outcome = await machine.within(tx).fire(task.id, 'FOLLOW_UP', followUpReset(task), { from: [task.status], quiet: true });
    if (outcome.ok)
      stored = await new TaskMessageRepository(() => tx).add({
        taskId: task.id,
        kind: 'follow_up',
        text: input.text,
        author: input.author,
      });
    return outcome.ok;
  });
  if (!moved || !stored)
    throw new TaskOperationError('conflict', `Task '${task.id}' changed while the message was sent; look at it again.`);
  const resumesSession = (await db.taskResults.lastSessionId(task.id)) !== null;
  await events.emit('task_follow_up_queued', {
    projectId: task.projectId,
    taskId: task.id,
    payload: {
      title: task.title,
      previous_status: task.status,
      text: cutWhole(input.text, 2000),
      author: input.author ?? null,
      resumes_session: resumesSession,
    },
  });
  await announceFollowUpWait(deps, task);
  return { delivery: 'follow_up', messageId: (stored as TaskMessageRecord).id, task, previousStatus: task.status, resumesSession };
}

/**
 * A message to a task queued in its merge train (approved, waiting or landing) waits for the
 * landing, as a run's leftover messages do: pulling the task back to READY would let its
 * follow-up run in the workspace its landing is using. Stored first and the train looked at
 * again after: the landing takes the task out of the train before it looks for messages, so
 * whichever of the two comes second queues the follow-up. Null when the task is not queued.
 */
async function messageAfterLanding(
  deps: Deps,
  task: TaskRecord,
  input: { text: string; author?: string | null },
): Promise<MessageDelivery | null> {
  const entry = await deps.db.mergeTrain.get(task.id);
  if (!entry || entry.state === 'sent_back') return null;
  const stored = await deps.db.taskMessages.add({ taskId: task.id, kind: 'follow_up', text: input.text, author: input.author });
  if (!(await queuedToLand(deps.db, task.id))) await queuePendingFollowUp(deps, task.id);
  return { delivery: 'after_landing', messageId: stored.id, task, place: entry.place };
}

/** Whether the task waits in its merge train (or is landing): a sent-back task waits for its follow-up instead. */
async function queuedToLand(db: Database, taskId: string): Promise<boolean> {
  const entry = await db.mergeTrain.get(taskId);
  return entry !== null && entry.state !== 'sent_back';
}

/** What a run continues with: the pending follow-up messages and the session they resume. */
export interface FollowUp {
  prompt: string;
  resumeSessionId: string | null;
  /** The whole task, what the last run said and the follow-up: for an agent that cannot load its session. */
  freshPrompt: string;
  messages: TaskMessageRecord[];
}

function quoted(messages: TaskMessageRecord[]): string {
  return messages.map((m) => (m.author ? `${m.author}: ${m.text}` : m.text)).join('\n\n');
}

/**
 * Takes the task's pending follow-up messages for the run about to start. With a session to
 * resume, they are the whole prompt (the session already holds the task); without one, they
 * follow the task's full prompt.
 */
export async function takeFollowUp(deps: Deps, task: TaskRecord, fullPrompt: string): Promise<FollowUp | null> {
  const pending = await deps.db.taskMessages.pending(task.id, 'follow_up');
  const taken: TaskMessageRecord[] = [];
  for (const m of pending) if (await deps.db.taskMessages.markDelivered(m.id)) taken.push(m);
  if (taken.length === 0) return null;
  const session = await deps.db.taskResults.lastSessionId(task.id);
  for (const m of taken) await emitDelivered(deps, task, m, 'follow_up');
  const text = quoted(taken);
  const moved = session ? await workspaceMoveNotice(deps.db, task) : null;
  const fresh = `${fullPrompt}\n\n## Follow-up instruction\n${text}`;
  const prompt = session
    ? `${moved ? `${moved}\n\n` : ''}Follow-up from the task's Slack thread. Continue on the same branch, and end with a short summary of what changed:\n\n${text}`
    : fresh;
  const previous = session ? (await deps.db.taskResults.latest(task.id))?.summary : null;
  const freshPrompt = previous
    ? `${fullPrompt}\n\n## What the previous run reported\n${previous}\n\n## Follow-up instruction\n${text}`
    : fresh;
  return { prompt, resumeSessionId: session, messages: taken, freshPrompt };
}

async function emitDelivered(deps: Deps, task: TaskRecord, m: TaskMessageRecord, via: 'live' | 'follow_up'): Promise<void> {
  await deps.events.emit('task_message_delivered', {
    projectId: task.projectId,
    taskId: task.id,
    payload: { title: task.title, message_id: m.id, text: cutWhole(m.text, 2000), author: m.author, via },
  });
}

/** The running task's inbox: live messages from the database, each marked and announced once. */
export function taskInbox(deps: Deps, task: TaskRecord): AgentInbox {
  const byId = new Map<number, TaskMessageRecord>();
  return {
    async pending() {
      const messages = await deps.db.taskMessages.pending(task.id, 'live');
      for (const m of messages) byId.set(m.id, m);
      return messages.map((m) => ({ id: m.id, text: m.author ? `${m.author}: ${m.text}` : m.text }));
    },
    async claim(message) {
      if (!(await deps.db.taskMessages.markDelivered(message.id))) return false;
      const record = byId.get(message.id);
      if (record) await emitDelivered(deps, task, record, 'live');
      return true;
    },
  };
}

/**
 * After a run: live messages it ended without taking become a follow-up, and a finished task
 * with a follow-up waiting goes back to the queue for it. A task whose run ended queued in its
 * merge train keeps the follow-up until its landing ends (the landing calls this again): whoever
 * lands it, the run's work completes first and the follow-up then resumes from there, instead
 * of pulling the task out of the train half-way.
 */
export async function queuePendingFollowUp(deps: Deps, taskId: string): Promise<boolean> {
  await deps.db.taskMessages.toFollowUp(taskId);
  if ((await deps.db.taskMessages.pending(taskId, 'follow_up')).length === 0) return false;
  // The train before the task: a landing moves the task on first and takes it out of the train after.
  const queued = await queuedToLand(deps.db, taskId);
  const task = await deps.db.tasks.get(taskId);
  if (!task || !FOLLOW_UP_FROM.includes(task.status)) return false;
  if (task.status === 'AWAITING_APPROVAL' && queued) return false;
  const moved = await deps.machine.fire(taskId, 'FOLLOW_UP', followUpReset(task), { from: [task.status], quiet: true });
  if (!moved.ok) return false;
  await deps.events.emit('task_follow_up_queued', {
    projectId: task.projectId,
    taskId,
    payload: {
      title: task.title,
      previous_status: task.status,
      text: null,
      author: null,
      resumes_session: (await deps.db.taskResults.lastSessionId(taskId)) !== null,
    },
  });
  await announceFollowUpWait(deps, task);
  return true;
}
