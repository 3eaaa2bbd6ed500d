import { randomUUID } from 'node:crypto';
import type { Actor, CommandResult } from '../commands/catalog';
import type { CommandHandler } from '../commands/handler';
import type { ChatContentBlock, ChatMessage, ChatProvider, ChatToolDefinition, ChatUsage } from './provider';
import type { ChatCommandRun, PendingConfirmation } from './service';

export const MAX_TOOL_ROUNDS = 12;
export const CHAT_MAX_TOKENS = 2048;

export interface AgentTurnInput {
  provider: ChatProvider;
  handler: CommandHandler;
  actor: Actor;
  system: string;
  tools: ChatToolDefinition[];
  /** The conversation so far, ending with the new user message. */
  messages: ChatMessage[];
  maxRounds?: number;
  onProgress?: (status: string) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface AgentTurnOutput {
  text: string;
  runs: ChatCommandRun[];
  pendingConfirmations: PendingConfirmation[];
  /** The conversation after the turn, ready to store (always well-formed for the next call). */
  messages: ChatMessage[];
  usage: ChatUsage[];
  failed: boolean;
}

function summarizeArgs(args: Record<string, unknown>): string {
  const shown = Object.entries(args)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
  return shown.length > 200 ? `${shown.slice(0, 197)}...` : shown;
}

/** Plain-words outcome of the commands run, for when the model ends without text. */
export function describeRuns(runs: ChatCommandRun[]): string {
  if (runs.length === 0) return 'I had nothing to report.';
  const sentences = runs.map((run) => {
    const r = run.result;
    if ('error' in r) return `${run.command} failed: ${String(r.error)}`;
    if (typeof r.created === 'string') return `Created ${r.created}${typeof r.title === 'string' ? ` (${r.title})` : ''}${typeof r.project_id === 'string' ? ` in ${r.project_id}` : ''}.`;
    for (const key of ['updated', 'deleted', 'approved', 'restarted', 'skipped', 'stopped', 'paused', 'resumed', 'fired']) {
      if (typeof r[key] === 'string') return `${key[0].toUpperCase()}${key.slice(1)} ${String(r[key])}.`;
    }
    return `Ran ${run.command}.`;
  });
  return sentences.join(' ');
}

/** A short, honest sentence for a failed model call. */
export function apiFailureText(err: unknown, ranCommands: boolean): string {
  const status = (err as { status?: number }).status;
  const reason =
    status === 429
      ? 'the model is rate limited right now'
      : status === 401 || status === 403
        ? 'the model service rejected the API key (check ANTHROPIC_API_KEY)'
        : status === 529
          ? 'the model service is overloaded'
          : status !== undefined && status >= 500
            ? `the model service failed (HTTP ${status})`
            : 'the model service could not be reached';
  return `I couldn't finish because ${reason}. ${ranCommands ? 'Some actions above did run.' : 'Nothing was changed.'} Please try again in a moment.`;
}

/**
 * One chat turn: send the conversation and tools, run every tool call through the command layer
 * (calls in one round run together), return their results, and repeat until the model answers
 * in text or the round bound is reached.
 */
export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
  const messages = [...input.messages];
  const runs: ChatCommandRun[] = [];
  const pending: PendingConfirmation[] = [];
  const usage: ChatUsage[] = [];
  const maxRounds = input.maxRounds ?? MAX_TOOL_ROUNDS;
  const startLength = messages.length;

  for (let round = 0; round < maxRounds; round++) {
    await input.onProgress?.(round === 0 ? 'Thinking…' : 'Thinking about the results…');
    let response;
    try {
      response = await input.provider.createMessage({
        messages,
        system: input.system,
        tools: input.tools,
        maxTokens: CHAT_MAX_TOKENS,
        signal: input.signal,
      });
    } catch (err) {
      const text = apiFailureText(err, runs.length > 0);
      // Keep the stored conversation well-formed: drop this turn's unfinished tool exchange.
      const kept = [...messages.slice(0, startLength), { role: 'assistant' as const, content: text }];
      return { text, runs, pendingConfirmations: pending, messages: kept, usage, failed: true };
    }
    usage.push(response.usage);
    messages.push({ role: 'assistant', content: response.content.length ? response.content : [{ type: 'text', text: response.text || '…' }] });
    if (response.toolUses.length === 0) {
      const text = response.text.trim() || describeRuns(runs);
      return { text, runs, pendingConfirmations: pending, messages, usage, failed: false };
    }
    await input.onProgress?.(`Running ${response.toolUses.map((t) => t.name).join(', ')}…`);
    const results: ChatContentBlock[] = await Promise.all(
      response.toolUses.map(async (use) => {
        const args = (use.input && typeof use.input === 'object' ? use.input : {}) as Record<string, unknown>;
        const command = input.handler.command(use.name);
        let result: CommandResult;
        if (!command || command.modelAccess === 'excluded') {
          result = { error: `Unknown command: ${use.name}` };
        } else if (command.modelAccess === 'confirm') {
          const confirmation = { id: randomUUID(), command: use.name, args, summary: `Run ${use.name}${Object.keys(args).length ? ` (${summarizeArgs(args)})` : ''}` };
          pending.push(confirmation);
          result = { status: 'awaiting_confirmation', message: `This needs a person's confirmation. Confirm and Cancel buttons are shown; do not call ${use.name} again.` };
        } else {
          result = await input.handler.execute(use.name, args, input.actor);
          runs.push({ command: use.name, args, result });
        }
        return { type: 'tool_result' as const, tool_use_id: use.id, content: JSON.stringify(result), ...('error' in result && { is_error: true }) };
      }),
    );
    messages.push({ role: 'user', content: results });
  }

  const text = `I stopped after ${maxRounds} rounds of tool calls without finishing. So far: ${describeRuns(runs)}`;
  messages.push({ role: 'assistant', content: text });
  // The last assistant message must follow the tool results, keeping the transcript valid.
  return { text, runs, pendingConfirmations: pending, messages, usage, failed: false };
}
