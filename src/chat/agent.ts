import { isReadCommand, modelAccessOf, type Actor, type AnyCommand, type CommandResult } from '../commands/catalog';
import type { CommandHandler } from '../commands/handler';
import { describeInputError } from '../commands/validation-errors';
import { newConfirmation } from './confirmations';
import {
  ModelCallError,
  type ChatContentBlock,
  type ChatMessage,
  type ChatProvider,
  type ChatResponse,
  type ChatToolDefinition,
  type ChatToolUse,
  type ChatUsage,
} from '../model/provider';
import type { ChatCommandRun, PendingConfirmation } from './service';
import { errorMessage } from '../util/error-message';
import { settleAll } from '../util/settle-all';
import { cutWhole } from '../util/whole-characters';

/** Model calls one turn may make before the agent stops and says so. */
export const MAX_TOOL_ROUNDS = 12;
export const CHAT_MAX_TOKENS = 2048;
/** A tool result longer than this is cut before it reaches the model. */
export const MAX_TOOL_RESULT_CHARS = 30_000;

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
  /** Called as each tool call starts and ends, for a live list of what the agent does. */
  onToolCall?: (call: ChatToolCall) => void | Promise<void>;
  signal?: AbortSignal;
}

/** One tool call as it happens: `held` when it waits for a person's Confirm. */
export interface ChatToolCall {
  id: string;
  command: string;
  state: 'running' | 'done' | 'failed' | 'held';
}

export interface AgentTurnOutput {
  text: string;
  runs: ChatCommandRun[];
  pendingConfirmations: PendingConfirmation[];
  /** The conversation after the turn, ending with the assistant's reply (well-formed for the next call). */
  messages: ChatMessage[];
  usage: ChatUsage[];
  /** True when a model call failed; `text` then says so. */
  failed: boolean;
}

const ACTION_KEYS = [
  'created',
  'updated',
  'deleted',
  'approved',
  'restarted',
  'skipped',
  'stopped',
  'paused',
  'resumed',
  'fired',
  'archived',
  'cancelled',
];

function capitalize(word: string): string {
  return word ? word[0].toUpperCase() + word.slice(1) : word;
}

/** "Created task swift-fox-042 (Fix login) in demo." from create_task's result. */
function describeRun(run: ChatCommandRun): string | null {
  const r = run.result;
  if ('error' in r) return `${run.command} failed: ${String(r.error)}`;
  const key = ACTION_KEYS.find((k) => typeof r[k] === 'string');
  if (!key) return null;
  const [verb, ...rest] = run.command.split('_');
  const noun = rest.length && key.startsWith(verb.replace(/e$/, '')) ? `${rest.join(' ')} ` : '';
  const title = typeof r.title === 'string' ? ` (${r.title})` : '';
  const where = typeof r.project_id === 'string' && r.project_id !== r[key] ? ` in ${r.project_id}` : '';
  // What an approval did to the task's landing ("Queued for landing: #2 in the merge train.").
  const landing = typeof r.landing === 'string' ? ` ${r.landing}` : '';
  return `${capitalize(key)} ${noun}${String(r[key])}${title}${where}.${landing}`;
}

/** The outcome of the commands run, in plain words, for when the model ends without text. */
export function describeOutcome(runs: ChatCommandRun[], pending: PendingConfirmation[] = []): string {
  const sentences = runs.map(describeRun).filter((s): s is string => s !== null);
  const lookedUp = [...new Set(runs.filter((run) => describeRun(run) === null).map((run) => run.command))];
  if (lookedUp.length)
    sentences.push(`I looked things up (${lookedUp.join(', ')}) but have nothing to add; ask me for the details you need.`);
  for (const p of pending) sentences.push(`Waiting for someone to confirm: ${p.summary}`);
  return sentences.length ? sentences.join(' ') : 'I have no answer to that. Could you say it another way?';
}

/** Why a model call failed, in a few words (the provider reports it as a ModelCallError). */
function failureReason(err: unknown): string {
  if (!(err instanceof ModelCallError)) return 'the model service could not be reached';
  switch (err.kind) {
    case 'cancelled':
      return 'the request was cancelled';
    case 'unreachable':
      return 'the model service could not be reached';
    case 'auth':
      return 'the model service rejected the API key (check ANTHROPIC_API_KEY)';
    case 'rate_limited':
      return 'the model is rate limited right now';
    case 'overloaded':
      return 'the model service is overloaded';
    case 'server':
      return `the model service failed (HTTP ${err.status})`;
    case 'refused':
      return `the model service refused the request (HTTP ${err.status})`;
  }
}

/**
 * A short, honest sentence for a failed model call. `changes` describes what commands did
 * before the failure; only when there is none does it say nothing was changed.
 */
export function apiFailureText(err: unknown, changes: string | null): string {
  const after = changes ? `Before that: ${changes}` : 'Nothing was changed.';
  return `I couldn't finish because ${failureReason(err)}. ${after} Please try again in a moment.`;
}

function isReadOnly(handler: CommandHandler, name: string): boolean {
  const command = handler.command(name);
  return command !== undefined && isReadCommand(command);
}

/** What this turn changed, in words, or null when it only read (or nothing succeeded). */
function changesMade(handler: CommandHandler, runs: ChatCommandRun[]): string | null {
  const changing = runs.filter((run) => !isReadOnly(handler, run.command) && !('error' in run.result));
  return changing.length ? describeOutcome(changing) : null;
}

function resultContent(result: CommandResult): string {
  const json = JSON.stringify(result);
  if (json.length <= MAX_TOOL_RESULT_CHARS) return json;
  return `${cutWhole(json, MAX_TOOL_RESULT_CHARS)}… (cut: ${json.length - MAX_TOOL_RESULT_CHARS} more characters; ask for less, e.g. with a filter or a limit)`;
}

interface ToolOutcome {
  block: ChatContentBlock;
  run?: ChatCommandRun;
  pending?: PendingConfirmation;
}

/** Runs one tool call: directly, or held for a person's confirmation. Never throws. */
async function runTool(input: AgentTurnInput, use: ChatToolUse): Promise<ToolOutcome> {
  const args = (use.input && typeof use.input === 'object' && !Array.isArray(use.input) ? use.input : {}) as Record<string, unknown>;
  const command: AnyCommand | undefined = input.handler.command(use.name);
  const answer = (result: CommandResult): ChatContentBlock => ({
    type: 'tool_result',
    tool_use_id: use.id,
    content: resultContent(result),
    ...('error' in result && { is_error: true }),
  });
  if (!command || modelAccessOf(command) === 'excluded') return { block: answer({ error: `Unknown command: ${use.name}` }) };

  if (modelAccessOf(command) === 'confirm') {
    // Check the input now, so nobody is asked to confirm a call that cannot run.
    const parsed = command.input.safeParse(args);
    if (!parsed.success) return { block: answer({ error: describeInputError(parsed.error, args) }) };
    const pending = newConfirmation(use.name, args);
    const held = {
      status: 'awaiting_confirmation',
      message: `Not run yet: a person must press Confirm (or Cancel) under your reply. Tell them what will happen; do not call ${use.name} again for this.`,
    };
    return { block: answer(held), pending };
  }

  let result: CommandResult;
  try {
    result = await input.handler.executeAny(use.name, args, input.actor);
  } catch (err) {
    result = { error: errorMessage(err) };
  }
  return { block: answer(result), run: { command: use.name, args, result } };
}

/**
 * One chat turn: send the conversation and tools, run every tool call through the command layer
 * (the calls of one round run together; results keep the calls' order), send the results back,
 * and repeat until the model answers without tools or the round bound is reached.
 */
export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
  const messages = [...input.messages];
  const runs: ChatCommandRun[] = [];
  const pending: PendingConfirmation[] = [];
  const usage: ChatUsage[] = [];
  const maxRounds = input.maxRounds ?? MAX_TOOL_ROUNDS;
  const progress = async (status: string) => {
    try {
      await input.onProgress?.(status);
    } catch {
      // A status line that fails to update must not stop the work.
    }
  };
  const toolCall = async (call: ChatToolCall) => {
    try {
      await input.onToolCall?.(call);
    } catch {
      // Like the status line: showing a step must not stop the work.
    }
  };
  const finish = (text: string, failed = false): AgentTurnOutput => {
    // `messages` always ends with a user message here, so the reply keeps roles alternating.
    messages.push({ role: 'assistant', content: text });
    return { text, runs, pendingConfirmations: pending, messages, usage, failed };
  };

  for (let round = 0; round < maxRounds; round++) {
    await progress(round === 0 ? 'Thinking…' : 'Thinking about the results…');
    let response: ChatResponse;
    try {
      response = await input.provider.createMessage({
        messages,
        system: input.system,
        tools: input.tools,
        maxTokens: CHAT_MAX_TOKENS,
        signal: input.signal,
      });
    } catch (err) {
      return finish(apiFailureText(err, changesMade(input.handler, runs)), true);
    }
    usage.push(response.usage);
    const content = response.content.filter((b) => b.type !== 'text' || b.text.trim() !== '');

    if (response.toolUses.length === 0) {
      const text = response.text.trim();
      if (!text) return finish(describeOutcome(runs, pending));
      messages.push({ role: 'assistant', content });
      return { text, runs, pendingConfirmations: pending, messages, usage, failed: false };
    }

    messages.push({ role: 'assistant', content });
    await progress(`Running ${[...new Set(response.toolUses.map((t) => t.name))].join(', ')}…`);
    for (const use of response.toolUses) await toolCall({ id: use.id, command: use.name, state: 'running' });
    const outcomes = await settleAll(response.toolUses.map((use) => runTool(input, use)));
    for (const [i, o] of outcomes.entries()) {
      const state = o.pending ? 'held' : o.run && !('error' in o.run.result) ? 'done' : 'failed';
      await toolCall({ id: response.toolUses[i].id, command: response.toolUses[i].name, state });
    }
    for (const o of outcomes) {
      if (o.run) runs.push(o.run);
      if (o.pending) pending.push(o.pending);
    }
    messages.push({ role: 'user', content: outcomes.map((o) => o.block) });
  }

  const soFar = changesMade(input.handler, runs);
  const waiting = pending.length ? ` ${describeOutcome([], pending)}` : '';
  return finish(
    `I stopped after ${maxRounds} rounds of tool calls without reaching an answer. ${soFar ? `So far: ${soFar}` : 'Nothing was changed.'}${waiting}`,
  );
}
