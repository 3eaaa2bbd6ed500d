import type { Actor, CommandResult } from '../commands/catalog';
import type { CommandHandler } from '../commands/handler';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import { describeOutcome, runAgentTurn, type ChatToolCall } from './agent';
import { ConfirmationStore, onlyAdminsConfirm, type StoredConfirmation } from './confirmations';
import { compactConversation, forStorage, STORED_RESULT_CHARS, withSummary } from './memory';
import type { ChatContentBlock, ChatMessage, ChatProvider, ChatUsage } from '../model/provider';
import { buildSystemPrompt } from './system-prompt';
import { toolDefinitions } from './tools';
import { errorMessage } from '../util/error-message';
import { cutWhole } from '../util/whole-characters';

/** One person's message to the chat agent, from Slack (a mention, a DM, free-text `/aq`) or the CLI. */
export interface ChatRequest {
  /** Memory key: `<channel>:<thread_ts>` in Slack, so each thread is its own conversation. */
  conversationId: string;
  text: string;
  actor: Actor;
  userName?: string;
  /** The project the conversation defaults to (the channel's linked project), if any. */
  projectId?: string | null;
  /**
   * Background for this message only, e.g. the earlier messages of the Slack thread it was posted
   * in. The model sees it just before the message; it is not stored (the next message brings its own).
   */
  context?: string | null;
  /** Called while the agent works ("Thinking…", "Running list_tasks…"), for a status line. */
  onProgress?: (status: string) => void | Promise<void>;
  /** Called as each tool call starts and ends (Slack shows them as steps of a streamed reply). */
  onToolCall?: (call: ChatToolCall) => void | Promise<void>;
  signal?: AbortSignal;
}

/** A command the agent ran during the turn, so the caller can render its result richly. */
export interface ChatCommandRun {
  command: string;
  args: Record<string, unknown>;
  result: CommandResult;
}

/** A command the model asked for that needs a person to confirm it with a button. */
export interface PendingConfirmation {
  id: string;
  command: string;
  args: Record<string, unknown>;
  /** One sentence saying what will happen, shown beside Confirm / Cancel. */
  summary: string;
}

export interface ChatReply {
  /** The agent's answer in Markdown, stating outcomes in plain words. */
  text: string;
  runs: ChatCommandRun[];
  pendingConfirmations: PendingConfirmation[];
  /** True when the person may not confirm this request; it still waits for someone who may. */
  refused?: boolean;
}

export interface ChatService {
  reply(request: ChatRequest): Promise<ChatReply>;
  /** Runs a confirmed command (as `actor`, so admin rules apply) and tells the agent the outcome. */
  confirm(confirmationId: string, actor: Actor): Promise<ChatReply>;
  /** Drops a pending confirmation; the agent is told it was cancelled. */
  cancel(confirmationId: string, actor: Actor): Promise<ChatReply>;
}

export interface ChatServiceDeps {
  db: Database;
  config: Pick<AppConfig, 'workspaceDir'>;
  provider: ChatProvider;
  /** A fresh command session; the service sets its active project to the conversation's. */
  createHandler: () => CommandHandler;
  log?: (message: string) => void;
  /** Tool rounds per turn (default MAX_TOOL_ROUNDS). */
  maxRounds?: number;
}

interface TurnInput {
  conversationId: string;
  /** The new user message, as stored and sent. */
  text: string;
  actor: Actor;
  projectId: string | null;
  context?: string | null;
  onProgress?: ChatRequest['onProgress'];
  onToolCall?: ChatRequest['onToolCall'];
  signal?: AbortSignal;
}

/** Longest message (mention, DM, free-text /aq) the model reads; the rest is cut with a note. */
export const MAX_CHAT_MESSAGE_CHARS = 12_000;

/** The message as the model gets it, and the note for the person when it was cut. */
export function boundedMessage(text: string): { text: string; note: string | null } {
  if (text.length <= MAX_CHAT_MESSAGE_CHARS) return { text, note: null };
  const left = (text.length - MAX_CHAT_MESSAGE_CHARS).toLocaleString('en-US');
  const limit = MAX_CHAT_MESSAGE_CHARS.toLocaleString('en-US');
  return {
    text: `${cutWhole(text, MAX_CHAT_MESSAGE_CHARS)}\n\n[The message was cut here: ${left} more characters were left out; the limit is ${limit}.]`,
    note: `Your message was longer than ${limit} characters, so I read only its first ${limit} (${left} were left out). Put long material in a note (write_note) or a file.`,
  };
}

const GONE = 'That request was already confirmed or cancelled, or it has expired. Nothing was run.';

function empty(text: string): ChatReply {
  return { text, runs: [], pendingConfirmations: [] };
}

function who(actor: Actor): string {
  return actor.userId ? `<@${actor.userId}>` : 'Someone';
}

function shortJson(result: CommandResult): string {
  const json = JSON.stringify(result);
  return json.length > STORED_RESULT_CHARS ? `${cutWhole(json, STORED_RESULT_CHARS)}…` : json;
}

/** The messages with `context` put just before the text of the last (the new) message. */
function withContext(messages: ChatMessage[], context: string | null | undefined): ChatMessage[] {
  const last = messages.at(-1);
  if (!context || !last) return messages;
  const blocks: ChatContentBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const content: ChatContentBlock[] = [...blocks.slice(0, -1), { type: 'text', text: context }, ...blocks.slice(-1)];
  return [...messages.slice(0, -1), { role: 'user', content }];
}

/**
 * The chat agent as a service: memory per conversation in SQLite, one turn at a time per
 * conversation, confirmations that survive a restart, and every model call's tokens recorded.
 */
export function createChatService(deps: ChatServiceDeps): ChatService {
  const confirmations = new ConfirmationStore(deps.db);
  const queues = new Map<string, Promise<unknown>>();

  /** Runs work for a conversation after the work already queued for it (messages arrive together). */
  function serialized<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(conversationId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    queues.set(conversationId, next);
    void next
      .finally(() => {
        if (queues.get(conversationId) === next) queues.delete(conversationId);
      })
      .catch(() => undefined);
    return next;
  }

  async function recordUsage(usage: ChatUsage[], projectId: string | null): Promise<void> {
    for (const u of usage) {
      await deps.db.tokenUsage.record({
        projectId,
        source: 'chat',
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
        cacheReadTokens: u.cacheReadTokens,
        cacheCreationTokens: u.cacheCreationTokens,
      });
    }
  }

  async function systemPrompt(projectId: string | null): Promise<string> {
    const projects = await deps.db.projects.list();
    const project = projects.find((p) => p.id === projectId);
    return buildSystemPrompt({
      projectId,
      projectName: project?.name,
      workspaceDir: deps.config.workspaceDir,
      projects: projects.map((p) => ({ id: p.id, name: p.name, status: p.status, workspace: p.workspace })),
    });
  }

  /** One turn: load memory, run the tool loop, fold old messages, store, record tokens. */
  async function turn(input: TurnInput): Promise<ChatReply & { failed: boolean }> {
    const stored = await deps.db.chatThreads.load(input.conversationId);
    const history = [...(stored.turns as ChatMessage[]), { role: 'user' as const, content: input.text }];
    const sent = withContext(withSummary(stored.summary, history), input.context);
    const handler = deps.createHandler();
    handler.activeProjectId = input.projectId;
    const result = await runAgentTurn({
      provider: deps.provider,
      handler,
      actor: input.actor,
      system: await systemPrompt(input.projectId),
      tools: toolDefinitions(handler.commands),
      messages: sent,
      maxRounds: deps.maxRounds,
      onProgress: input.onProgress,
      onToolCall: input.onToolCall,
      signal: input.signal,
    });
    // The agent only appends, so what follows `sent` is this turn's new messages.
    let turns = forStorage([...history, ...result.messages.slice(sent.length)]);
    let summary = stored.summary;
    const usage = [...result.usage];
    if (!result.failed) {
      try {
        const compacted = await compactConversation(deps.provider, summary, turns);
        ({ summary, messages: turns } = compacted);
        if (compacted.usage) usage.push(compacted.usage);
      } catch (err) {
        // Kept whole; the next turn tries again.
        deps.log?.(`Could not summarise chat ${input.conversationId}: ${errorMessage(err)}`);
      }
    }
    await deps.db.chatThreads.save(input.conversationId, { summary, turns });
    for (const c of result.pendingConfirmations) await confirmations.save(c, input.conversationId, input.projectId);
    await recordUsage(usage, input.projectId);
    return { text: result.text, runs: result.runs, pendingConfirmations: result.pendingConfirmations, failed: result.failed };
  }

  /** Tells the model what a person decided and returns its answer (or a plain sentence if it cannot answer). */
  async function resumeAfter(
    pending: StoredConfirmation,
    actor: Actor,
    note: string,
    fallback: string,
    run?: ChatCommandRun,
  ): Promise<ChatReply> {
    const reply = await turn({ conversationId: pending.conversationId, text: note, actor, projectId: pending.projectId });
    const runs = run ? [run, ...reply.runs] : reply.runs;
    const text = reply.failed ? `${fallback} (I could not reach the model to say more.)` : reply.text;
    return { text, runs, pendingConfirmations: reply.pendingConfirmations };
  }

  return {
    reply(request) {
      const bounded = boundedMessage(request.text);
      const text = request.userName ? `[from ${request.userName}] ${bounded.text}` : bounded.text;
      return serialized(request.conversationId, async () => {
        const { failed: _failed, ...reply } = await turn({
          conversationId: request.conversationId,
          text,
          actor: request.actor,
          projectId: request.projectId ?? null,
          context: request.context,
          onProgress: request.onProgress,
          onToolCall: request.onToolCall,
          signal: request.signal,
        });
        return bounded.note ? { ...reply, text: `_${bounded.note}_\n\n${reply.text}` } : reply;
      });
    },

    async confirm(confirmationId, actor) {
      const waiting = await confirmations.peek(confirmationId);
      if (!waiting) return empty(GONE);
      const checker = deps.createHandler();
      const command = checker.command(waiting.command);
      if (command && onlyAdminsConfirm(command) && !checker.isAdmin(actor)) {
        const text = `Only an admin (AQ_ADMINS) can confirm ${waiting.command}: the chat agent asked for it, and it deletes, stops or changes things that are hard to undo. Nothing was run; it still waits for an admin's click.`;
        return { ...empty(text), refused: true };
      }
      const pending = await confirmations.take(confirmationId);
      if (!pending) return empty(GONE);
      return serialized(pending.conversationId, async () => {
        const handler = deps.createHandler();
        handler.activeProjectId = pending.projectId;
        // As the person who pressed Confirm, so admin rules apply to them.
        const result = await handler.executeAny(pending.command, pending.args, actor);
        const run = { command: pending.command, args: pending.args, result };
        const note = `[confirmed] ${who(actor)} confirmed: ${pending.summary} Result: ${shortJson(result)} Tell them the outcome in one or two sentences.`;
        return resumeAfter(pending, actor, note, describeOutcome([run]), run);
      });
    },

    async cancel(confirmationId, actor) {
      const pending = await confirmations.take(confirmationId);
      if (!pending) return empty(GONE);
      return serialized(pending.conversationId, () => {
        const note = `[cancelled] ${who(actor)} cancelled: ${pending.summary} It was not run. Acknowledge in one short sentence; do not try it again unless asked.`;
        return resumeAfter(pending, actor, note, `Cancelled: ${pending.summary} Nothing was changed.`);
      });
    },
  };
}
