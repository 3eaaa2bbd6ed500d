import { z } from 'zod';
import { type AgentQuestion, MAX_RULE_LENGTH, ruleProblem } from '../agents/agent-requests';
import type { AgentRequestRecord } from '../db/repositories/agent-requests';
import { answerAgentRequest } from '../orchestrator/agent-request-answers';
import { effectiveToolPolicy } from '../orchestrator/agent-requests';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { isAdminHere } from './admin-check';
import { requireProject } from './projects';
import { requireTask } from './task-common';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { boolean, integer, optional, requiredText, stringList } from './schema';
import { taskOperation } from './task-lifecycle';
import { maySteer } from './steer-check';
import { settleAll } from '../util/settle-all';

const MAX_RULES = 200;

const rules = (description: string) =>
  optional(
    stringList(description).pipe(
      z
        .array(z.string().max(MAX_RULE_LENGTH, `A rule is at most ${MAX_RULE_LENGTH} characters.`))
        .max(MAX_RULES, `A policy holds at most ${MAX_RULES} rules.`),
    ),
  );

/** Refuses the first rule that is not Claude Code rule syntax, naming the field. */
function checkRules(field: string, list: string[] | undefined): void {
  for (const rule of list ?? []) {
    const problem = ruleProblem(rule);
    if (problem) throw new CommandError(`Field '${field}': ${problem}`);
  }
}

async function policyResult(ctx: CommandContext, projectId: string) {
  const policy = await effectiveToolPolicy(ctx.db, projectId);
  const ask = ctx.config.agents.ask;
  return {
    project_id: projectId,
    rules: policy.rules,
    is_default: policy.isDefault,
    asks_people: ask.people,
    timeout_seconds: Math.round(ask.timeoutMs / 1000),
    on_timeout: ask.onTimeout,
  };
}

export const getToolPolicy = defineCommand({
  name: 'get_tool_policy',
  group: 'agents',
  kind: 'read',
  description:
    "Show a project's tool policy: the Claude Code allow rules its agents run under without asking (e.g. Read, Bash(npm test:*)). Anything else is asked in the task's thread, or denied when nobody can be asked.",
  input: () => z.object({ project_id: requiredText('Project id') }),
  async run({ project_id }, ctx) {
    await requireProject(ctx, project_id);
    return policyResult(ctx, project_id);
  },
});

export const setToolPolicy = defineCommand({
  name: 'set_tool_policy',
  group: 'agents',
  kind: 'admin',
  description:
    "Change a project's tool policy: `rules` replaces it, `add` and `remove` edit it, `reset` returns to the default. A rule is a tool name (Read, WebFetch) or a tool with a pattern (Bash(npm test:*), WebFetch(domain:example.com)). The workspace confinement and the shell sandbox still apply to everything allowed.",
  input: () =>
    z.object({
      project_id: requiredText('Project id'),
      rules: rules('The whole policy, e.g. ["Read","Edit","Bash(npm test:*)"]'),
      add: rules('Rules to add, e.g. ["Bash(make build:*)"]'),
      remove: rules('Rules to remove'),
      reset: optional(boolean('Go back to the default policy')),
    }),
  async run({ project_id, rules: whole, add, remove, reset }, ctx) {
    await requireProject(ctx, project_id);
    checkRules('rules', whole);
    checkRules('add', add);
    if (!whole && !add && !remove && !reset) {
      throw new CommandError('Say what to change: rules (the whole policy), add, remove, or reset=true.');
    }
    if (reset && (whole || add || remove)) throw new CommandError('reset=true goes back to the default; give it alone.');
    const by = ctx.actor.userId ?? ctx.actor.source;
    if (reset) await ctx.db.toolPolicies.clear(project_id);
    else {
      const current = whole ?? (await effectiveToolPolicy(ctx.db, project_id)).rules;
      const removed = new Set(remove ?? []);
      const next = [...new Set([...current, ...(add ?? [])])].filter((r) => !removed.has(r));
      if (next.length > MAX_RULES) throw new CommandError(`A policy holds at most ${MAX_RULES} rules.`);
      await ctx.db.toolPolicies.set(project_id, next, by);
    }
    return policyResult(ctx, project_id);
  },
});

/**
 * What a request asks, by its kind. The payload is the JSON the orchestrator stored when the agent
 * asked (src/orchestrator/agent-requests.ts): its questions, or the tool call and the rule that
 * would allow it.
 */
type RequestAsk =
  | { kind: 'question'; questions: AgentQuestion[] }
  | { kind: 'permission'; tool: string; detail: string; description: string | null; rule: string };

function askOf(r: AgentRequestRecord): RequestAsk {
  const p = r.payload;
  if (r.kind === 'question') return { kind: 'question', questions: Array.isArray(p.questions) ? (p.questions as AgentQuestion[]) : [] };
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    kind: 'permission',
    tool: text(p.tool),
    detail: text(p.detail),
    description: typeof p.description === 'string' ? p.description : null,
    rule: text(p.rule),
  };
}

function requestView(r: AgentRequestRecord) {
  return {
    id: r.id,
    task_id: r.taskId,
    project_id: r.projectId,
    ...askOf(r),
    status: r.status,
    answer: r.answer,
    answered_by: r.answeredBy,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
  };
}

const REQUEST_PAGE: ListPaging = { key: 'requests', defaultLimit: 20, maxLimit: 100 };

export const listAgentRequests = defineCommand({
  name: 'list_agent_requests',
  group: 'agents',
  kind: 'read',
  description:
    "Questions and permission requests of agents, newest first: the open ones (status=pending, the default) or all, for a task or a project. Answer them with answer_agent_request, or in the task's Slack thread.",
  input: () =>
    z.object({
      task_id: optional(requiredText('Task id')),
      project_id: optional(requiredText('Project id')),
      status: optional(z.enum(['pending', 'answered', 'timed_out', 'cancelled', 'all']).describe('Which requests (default pending)')),
      ...pageFields(REQUEST_PAGE),
    }),
  list: REQUEST_PAGE,
  async run({ task_id, project_id, status, ...paging }, ctx) {
    // A filter naming nothing is a mistake to say, not an empty list.
    if (task_id) await requireTask(ctx, task_id);
    if (project_id) await requireProject(ctx, project_id);
    const wanted = status ?? 'pending';
    const filter = { taskId: task_id, projectId: project_id, ...(wanted !== 'all' && { status: wanted }) };
    const page = pageOf(paging, REQUEST_PAGE.defaultLimit);
    const [found, total] = await settleAll([
      ctx.db.agentRequests.list(filter, page.limit, page.offset),
      ctx.db.agentRequests.count(filter),
    ]);
    return { requests: found.map(requestView), total, next_offset: nextOffset(page, found.length, total) };
  },
});

export const answerAgentRequestCommand = defineCommand({
  name: 'answer_agent_request',
  group: 'agents',
  kind: 'change',
  description:
    "Answer an agent that waits for a person. A permission request: decision allow (once), always (allow, and add its rule to the project's tool policy) or deny (with a reason the agent reads). A question: decision answer, with `answer` text, or question_index and option_index for one of its options (0-based), or question_index and option_indexes for several options of a multi-select question.",
  input: () =>
    z.object({
      request_id: integer('Request id (list_agent_requests)', { min: 1 }),
      decision: z.enum(['allow', 'always', 'deny', 'answer']).describe('allow | always | deny for permissions; answer for questions'),
      answer: optional(z.string().trim().min(1).max(4000).describe('The answer text (questions)')),
      reason: optional(z.string().trim().min(1).max(2000).describe('Why it is denied; the agent reads it')),
      question_index: optional(integer('Which question (0-based)', { min: 0, max: 20 })),
      option_index: optional(integer('Which of its options (0-based)', { min: 0, max: 20 })),
      option_indexes: optional(
        z
          .array(integer('An option (0-based)', { min: 0, max: 20 }))
          .min(1)
          .max(20)
          .describe('Several of its options (0-based), for a multi-select question'),
      ),
    }),
  modelAccess: 'confirm',
  async run({ request_id, decision, answer, reason, question_index, option_index, option_indexes }, ctx) {
    const request = await ctx.db.agentRequests.get(request_id);
    if (request && !(await maySteer(ctx, request.projectId))) {
      throw new CommandError("Only the project's steerers or admins (AQ_ADMINS) may answer its agents; ask one of them.");
    }
    // "Always" widens the project's tool policy for every later run, as set_tool_policy does.
    if (decision === 'always' && !isAdminHere(ctx)) {
      throw new CommandError("Only admins (AQ_ADMINS) may add to a project's tool policy; choose Allow once, or ask an admin.");
    }
    const done = await taskOperation(
      answerAgentRequest(
        { db: ctx.db, events: ctx.events },
        {
          requestId: request_id,
          decision,
          reason: reason ?? null,
          text: answer ?? null,
          questionIndex: question_index ?? null,
          optionIndex: option_index ?? null,
          optionIndexes: option_indexes ?? null,
          by: ctx.actor.userId ?? ctx.actor.source,
        },
      ),
    );
    return {
      request_id,
      task_id: done.request.taskId,
      title: done.title,
      kind: done.request.kind,
      decision,
      status: done.complete ? ('answered' as const) : ('pending' as const),
      ...(done.request.kind === 'question' && { answers: (done.request.answer?.answers ?? {}) as Record<string, string> }),
      ...(reason && { reason }),
      ...(done.rule && { rule_added: done.rule }),
      request: requestView(done.request),
    };
  },
});

export const agentRequestCommands = [getToolPolicy, setToolPolicy, listAgentRequests, answerAgentRequestCommand];
