import type { Database } from '../db/database';
import type { AgentRequestRecord } from '../db/repositories/agent-requests';
import type { AgentQuestion } from '../agents/agent-requests';
import { effectiveToolPolicy } from './agent-requests';
import type { EventLog } from './events';
import { TaskStateMachine } from './state-machine';
import { TaskOperationError } from './task-errors';

export type RequestDecision = 'allow' | 'always' | 'deny' | 'answer';

export interface RequestAnswerInput {
  requestId: number;
  decision: RequestDecision;
  /** Deny: why (the model reads it). */
  reason?: string | null;
  /** Answer: free text, for every question not answered yet. */
  text?: string | null;
  /** Answer: a chosen option (a button), by position in the request. */
  questionIndex?: number | null;
  optionIndex?: number | null;
  /** Answer: several options of a multi-select question (ticked boxes), replacing earlier choices. */
  optionIndexes?: number[] | null;
  by: string | null;
}

export interface AnsweredRequest {
  request: AgentRequestRecord;
  /** False while other questions of the same request are still open. */
  complete: boolean;
  title: string;
  /** Always allow: the rule now in the project's policy. */
  rule?: string;
}

const STATUS_WORDS: Record<string, string> = {
  answered: 'was already answered',
  timed_out: 'timed out, and the agent went on without it',
  cancelled: 'ended with its run',
};

function questionsOf(request: AgentRequestRecord): AgentQuestion[] {
  return Array.isArray(request.payload.questions) ? (request.payload.questions as AgentQuestion[]) : [];
}

async function pendingRequest(db: Database, requestId: number): Promise<AgentRequestRecord> {
  const request = await db.agentRequests.get(requestId);
  if (!request) throw new TaskOperationError('not_found', `Agent request ${requestId} not found; list_agent_requests shows the open ones.`);
  if (request.status !== 'pending') {
    throw new TaskOperationError('conflict', `Agent request ${requestId} ${STATUS_WORDS[request.status] ?? 'is closed'}.`);
  }
  return request;
}

/** Several options of one question as the SDK reads them: labels in the question's order, comma-separated. */
function chosenLabels(request: AgentRequestRecord, question: AgentQuestion, indexes: number[]): string {
  const chosen = [...new Set(indexes)].sort((a, b) => a - b);
  const missing = chosen.find((i) => !question.options[i]);
  if (missing !== undefined) {
    throw new TaskOperationError(
      'wrong_status',
      `Agent request ${request.id}'s question has no option ${missing + 1}; it has ${question.options.length}.`,
    );
  }
  if (chosen.length > 1 && !question.multiSelect) {
    throw new TaskOperationError('wrong_status', `Agent request ${request.id}'s question takes one option; choose one (option_index).`);
  }
  return chosen.map((i) => question.options[i].label).join(', ');
}

/** The answers a question request holds after this input (options are checked against the request). */
function mergedAnswers(request: AgentRequestRecord, input: RequestAnswerInput): Record<string, string> {
  const questions = questionsOf(request);
  const answers = { ...((request.answer?.answers ?? {}) as Record<string, string>) };
  if (input.questionIndex !== undefined && input.questionIndex !== null) {
    const question = questions[input.questionIndex];
    if (!question) throw new TaskOperationError('wrong_status', `Agent request ${request.id} has no question ${input.questionIndex + 1}.`);
    if (input.optionIndexes?.length) {
      answers[question.question] = chosenLabels(request, question, input.optionIndexes);
      return answers;
    }
    const option = input.optionIndex === undefined || input.optionIndex === null ? null : question.options[input.optionIndex];
    const value = option?.label ?? input.text?.trim();
    if (!value) throw new TaskOperationError('wrong_status', `Choose one of the question's options, or give an answer text.`);
    const earlier = answers[question.question];
    // Several choices of a multi-select question add up (the SDK reads them comma-separated).
    answers[question.question] =
      question.multiSelect && earlier && option && !earlier.split(', ').includes(value) ? `${earlier}, ${value}` : value;
    return answers;
  }
  const text = input.text?.trim();
  if (!text)
    throw new TaskOperationError('wrong_status', 'An answer needs text (answer) or a chosen option (question_index and option_index).');
  for (const q of questions) if (!(q.question in answers)) answers[q.question] = text;
  return answers;
}

/**
 * Answers an agent's question or permission request, from any process: the row is updated
 * (compare-and-set, so a second click or a timeout that came first is told so), "always allow"
 * adds the rule to the project's policy first, and an event wakes the waiting run and tells Slack.
 */
export async function answerAgentRequest(deps: { db: Database; events: EventLog }, input: RequestAnswerInput): Promise<AnsweredRequest> {
  const { db, events } = deps;
  const request = await pendingRequest(db, input.requestId);
  const task = await db.tasks.get(request.taskId);
  const title = task?.title ?? request.taskId;
  let answer: Record<string, unknown>;
  let rule: string | undefined;
  if (request.kind === 'question') {
    if (input.decision !== 'answer') {
      throw new TaskOperationError(
        'wrong_status',
        `Agent request ${request.id} is a question: answer it (decision=answer) with text or an option.`,
      );
    }
    const answers = mergedAnswers(request, input);
    answer = { answers };
    if (questionsOf(request).some((q) => !(q.question in answers))) {
      if (!(await db.agentRequests.keepPartial(request.id, answer))) {
        throw new TaskOperationError('conflict', `Agent request ${request.id} closed while it was being answered.`);
      }
      return { request: { ...request, answer }, complete: false, title };
    }
  } else {
    if (input.decision === 'answer') {
      throw new TaskOperationError('wrong_status', `Agent request ${request.id} asks for a permission: allow, always (allow) or deny it.`);
    }
    answer = { decision: input.decision, ...(input.reason?.trim() && { reason: input.reason.trim() }) };
    if (input.decision === 'always') {
      rule = String(request.payload.rule ?? request.payload.tool ?? '');
      const policy = await effectiveToolPolicy(db, request.projectId);
      if (rule && !policy.rules.includes(rule)) await db.toolPolicies.set(request.projectId, [...policy.rules, rule], input.by);
      answer.rule = rule;
    }
  }
  if (!(await db.agentRequests.answer(request.id, answer, input.by))) {
    throw new TaskOperationError('conflict', `Agent request ${request.id} was answered or closed by someone else first.`);
  }
  const answered = (await db.agentRequests.get(request.id)) ?? request;
  // The task runs again as soon as nothing else is open (the waiting run then just goes on).
  if ((await db.agentRequests.countPending(request.taskId)) === 0) {
    await new TaskStateMachine(db).fire(request.taskId, 'INPUT_RECEIVED', {}, { from: ['WAITING_INPUT'], quiet: true });
  }
  await events.emit('agent_request_answered', {
    projectId: request.projectId,
    taskId: request.taskId,
    payload: { request_id: request.id, kind: request.kind, title, answered_by: input.by, ...answer },
  });
  return { request: answered, complete: true, title, ...(rule && { rule }) };
}

/** The task's open question, if its agent is waiting for one (a thread reply answers it). */
export async function pendingQuestion(db: Database, taskId: string): Promise<AgentRequestRecord | null> {
  const open = await db.agentRequests.list({ taskId, status: 'pending' }, 10);
  return open.filter((r) => r.kind === 'question').at(-1) ?? null;
}
