import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolKind } from '@agentclientprotocol/sdk';
import { ruleFor, type AgentRequests, type PermissionAnswer } from './agent-requests';

/**
 * An ACP agent's `session/request_permission`, judged like Claude Code's tool calls: the
 * project's tool policy (Claude Code rule syntax) allows what it names, the rest goes to people
 * through the same relay, and nobody to ask means no.
 */

/** The Claude Code tool an ACP tool kind stands for, so one policy serves every backend. */
const TOOL_OF_KIND: Record<ToolKind, string> = {
  read: 'Read',
  edit: 'Edit',
  delete: 'Edit',
  move: 'Edit',
  search: 'Grep',
  execute: 'Bash',
  think: 'Think',
  fetch: 'WebFetch',
  switch_mode: 'SwitchMode',
  other: 'Other',
};

/** The shell command of an execute call, whichever shape the agent gave it. */
export function commandOf(rawInput: unknown): string | null {
  const input = (rawInput ?? {}) as Record<string, unknown>;
  const command = input.command ?? input.cmd;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) {
    // `["bash", "-lc", "npm test"]`: the script is what people judge.
    const [program, flag, script] = command as string[];
    if (/(^|\/)(ba|z)?sh$/.test(program ?? '') && /^-l?c$/.test(flag ?? '') && script) return script;
    return (command as string[]).join(' ');
  }
  return null;
}

function urlHost(rawInput: unknown): string | null {
  const url = ((rawInput ?? {}) as Record<string, unknown>).url;
  if (typeof url !== 'string') return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

/** Whether one policy rule allows the call (`Read`, `Bash(npm test:*)`, `Bash(git diff *)`, `WebFetch(domain:x)`). */
export function ruleAllows(rule: string, tool: string, rawInput: unknown): boolean {
  const open = rule.indexOf('(');
  const name = open < 0 ? rule : rule.slice(0, open);
  if (name !== tool) return false;
  if (open < 0) return true;
  const content = rule.slice(open + 1, -1);
  if (tool === 'Bash') {
    const command = commandOf(rawInput)?.trim().replace(/\s+/g, ' ');
    if (!command) return false;
    const prefix = /^(.*?)(?::\*| \*)$/.exec(content)?.[1];
    if (prefix !== undefined) return command === prefix || command.startsWith(`${prefix} `);
    return command === content;
  }
  if (tool === 'WebFetch' && content.startsWith('domain:')) {
    const host = urlHost(rawInput);
    return !!host && hostMatches(host, content.slice('domain:'.length));
  }
  return false;
}

function optionOf(options: PermissionOption[], kinds: PermissionOption['kind'][]): RequestPermissionResponse {
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}

export const ALLOW: PermissionOption['kind'][] = ['allow_once', 'allow_always'];
const ALWAYS: PermissionOption['kind'][] = ['allow_always', 'allow_once'];
export const REJECT: PermissionOption['kind'][] = ['reject_once', 'reject_always'];

function answerToOutcome(answer: PermissionAnswer, options: PermissionOption[]): RequestPermissionResponse {
  if (answer.decision === 'deny') return optionOf(options, REJECT);
  return optionOf(options, answer.decision === 'always' ? ALWAYS : ALLOW);
}

export interface PermissionJudge {
  /** The outcome to send back; `stop` when the person's answer stops the task. */
  decide(request: RequestPermissionRequest, signal: AbortSignal): Promise<{ response: RequestPermissionResponse; stop: boolean }>;
}

export function permissionJudge(requests: AgentRequests | undefined, rules: readonly string[]): PermissionJudge {
  return {
    async decide(request, signal) {
      const { toolCall, options } = request;
      const kind = (toolCall.kind ?? 'other') as ToolKind;
      const tool = TOOL_OF_KIND[kind] ?? 'Other';
      const rawInput = toolCall.rawInput;
      if (kind === 'think' || rules.some((rule) => ruleAllows(rule, tool, rawInput))) {
        return { response: optionOf(options, ALLOW), stop: false };
      }
      if (!requests?.canAsk) return { response: optionOf(options, REJECT), stop: false };
      const command = commandOf(rawInput);
      const input: Record<string, unknown> = {
        ...((rawInput ?? {}) as Record<string, unknown>),
        ...(command !== null && { command }),
      };
      const answer = await requests.askPermission(
        { tool, input, description: toolCall.title ?? null, reason: null, rule: ruleFor(tool, input, null) },
        signal,
      );
      return { response: answerToOutcome(answer, options), stop: answer.decision === 'deny' && !!answer.stop };
    },
  };
}
