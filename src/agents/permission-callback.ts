import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { ruleFor, type AgentQuestion, type AgentRequests } from './agent-requests';
import { errorMessage } from '../util/error-message';

/** The run's own signal and the CLI's per-call signal, whichever ends first. */
function either(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  return b ? AbortSignal.any([a, b]) : a;
}

function questionsOf(input: Record<string, unknown>): AgentQuestion[] {
  const raw = Array.isArray(input.questions) ? (input.questions as Array<Record<string, unknown>>) : [];
  return raw
    .filter((q) => typeof q?.question === 'string')
    .map((q) => ({
      question: String(q.question),
      ...(typeof q.header === 'string' && { header: q.header }),
      options: (Array.isArray(q.options) ? (q.options as Array<Record<string, unknown>>) : [])
        .filter((o) => typeof o?.label === 'string')
        .map((o) => ({ label: String(o.label), ...(typeof o.description === 'string' && { description: o.description }) })),
      multiSelect: q.multiSelect === true,
    }));
}

const NOBODY_TO_ASK =
  'This tool call is outside the project’s tool policy and nobody can be asked while this task runs, so it was not run. Do the work with the allowed tools, or finish and say what you needed; a person can allow it with set_tool_policy.';

/**
 * Claude Code's permission callback: what the policy (allowedTools) and acceptEdits did not
 * allow comes here. `wholeTools` are the policy's bare tool names (`Read`): allowed here rather
 * than in allowedTools, where a bare name would skip this callback for the whole tool (the SDK
 * warns about that, CLAUDE_SDK_CAN_USE_TOOL_SHADOWED). AskUserQuestion goes to people as a question; any other call as a
 * permission request. Without anyone to ask, the call is denied with a sentence that says why.
 */
export function permissionCallback(
  requests: AgentRequests | undefined,
  runSignal: AbortSignal,
  log: (message: string) => void = () => undefined,
  wholeTools: ReadonlySet<string> = new Set(),
): CanUseTool {
  const decide = decider(requests, runSignal, wholeTools);
  return async (toolName, input, options) => {
    try {
      return await decide(toolName, input, options);
    } catch (err) {
      // The database or Slack failing must not crash the agent: the call is refused, and said why.
      log(`Asking about ${toolName} failed: ${errorMessage(err)}`);
      return { behavior: 'deny', message: 'This call needed a person’s answer, and asking failed; it was not run. Go on without it.' };
    }
  };
}

function decider(requests: AgentRequests | undefined, runSignal: AbortSignal, wholeTools: ReadonlySet<string>): CanUseTool {
  return async (toolName, input, options): Promise<PermissionResult> => {
    const signal = either(runSignal, options.signal);
    if (toolName !== 'AskUserQuestion' && wholeTools.has(toolName)) return { behavior: 'allow', updatedInput: input };
    if (toolName === 'AskUserQuestion') {
      if (!requests?.canAsk) {
        return { behavior: 'deny', message: 'Nobody can answer questions for this task; decide yourself and say what you assumed.' };
      }
      const answer = await requests.askQuestions(questionsOf(input), signal);
      if (answer.answered) return { behavior: 'allow', updatedInput: { ...input, answers: answer.answers } };
      return { behavior: 'deny', message: answer.message, ...(answer.stop && { interrupt: true }) };
    }
    if (!requests?.canAsk) return { behavior: 'deny', message: NOBODY_TO_ASK };
    const rule = ruleFor(toolName, input, options.suggestions);
    const answer = await requests.askPermission(
      {
        tool: toolName,
        input,
        description: options.description ?? (typeof input.description === 'string' ? input.description : null),
        reason: options.decisionReason ?? null,
        rule,
      },
      signal,
    );
    if (answer.decision === 'deny') return { behavior: 'deny', message: answer.message, ...(answer.stop && { interrupt: true }) };
    if (answer.decision === 'always') {
      // The project's policy now holds the rule (next runs); the session learns it too.
      const [name, content] = splitRule(rule);
      return {
        behavior: 'allow',
        updatedInput: input,
        updatedPermissions: [
          {
            type: 'addRules',
            rules: [{ toolName: name, ...(content !== null && { ruleContent: content }) }],
            behavior: 'allow',
            destination: 'session',
          },
        ],
      };
    }
    return { behavior: 'allow', updatedInput: input };
  };
}

function splitRule(rule: string): [string, string | null] {
  const open = rule.indexOf('(');
  return open < 0 ? [rule, null] : [rule.slice(0, open), rule.slice(open + 1, -1)];
}
