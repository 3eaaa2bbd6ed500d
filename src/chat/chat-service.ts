import type { Actor } from '../commands/catalog';
import type { CommandHandler } from '../commands/handler';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import { runAgentTurn } from './agent';
import { compactConversation } from './memory';
import type { ChatMessage, ChatProvider, ChatUsage } from './provider';
import type { ChatReply, ChatRequest, ChatService, PendingConfirmation } from './service';
import { buildSystemPrompt } from './system-prompt';
import { toolDefinitions } from './tools';

export interface ChatServiceDeps {
  db: Database;
  config: AppConfig;
  provider: ChatProvider;
  createHandler: () => CommandHandler;
  log?: (message: string) => void;
}

interface StoredConfirmation extends PendingConfirmation {
  conversationId: string;
  projectId: string | null;
}

const CONFIRMATION_KEY = (id: string) => `chat_confirmation:${id}`;

/** The chat agent as a service: memory per conversation, one turn at a time per conversation. */
export function createChatService(deps: ChatServiceDeps): ChatService {
  const queues = new Map<string, Promise<unknown>>();

  /** Runs work for a conversation after the work already queued for it. */
  function serialized<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(conversationId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    queues.set(conversationId, next);
    void next.finally(() => {
      if (queues.get(conversationId) === next) queues.delete(conversationId);
    });
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

  async function turn(conversationId: string, userText: string, actor: Actor, projectId: string | null, request?: ChatRequest): Promise<ChatReply> {
    const stored = await deps.db.chatThreads.load(conversationId);
    const handler = deps.createHandler();
    handler.activeProjectId = projectId;
    const project = projectId ? await deps.db.projects.get(projectId) : null;
    const system = buildSystemPrompt({
      projectId,
      projectName: project?.name,
      workspaceDir: deps.config.workspaceDir,
      userName: request?.userName,
      summary: stored.summary,
    });
    const messages: ChatMessage[] = [...(stored.turns as ChatMessage[]), { role: 'user', content: userText }];
    const result = await runAgentTurn({
      provider: deps.provider,
      handler,
      actor,
      system,
      tools: toolDefinitions(handler.commands),
      messages,
      onProgress: request?.onProgress,
      signal: request?.signal,
    });
    const usage = [...result.usage];
    let summary = stored.summary;
    let kept = result.messages;
    if (!result.failed) {
      try {
        const compacted = await compactConversation(deps.provider, summary, kept);
        summary = compacted.summary;
        kept = compacted.messages;
        if (compacted.usage) usage.push(compacted.usage);
      } catch (err) {
        deps.log?.(`Could not summarise conversation ${conversationId}: ${String(err)}`);
      }
    }
    await deps.db.chatThreads.save(conversationId, { summary, turns: kept });
    for (const c of result.pendingConfirmations) {
      await deps.db.state.set(CONFIRMATION_KEY(c.id), { ...c, conversationId, projectId } satisfies StoredConfirmation);
    }
    await recordUsage(usage, projectId);
    return { text: result.text, runs: result.runs, pendingConfirmations: result.pendingConfirmations };
  }

  async function takeConfirmation(id: string): Promise<StoredConfirmation | null> {
    const stored = await deps.db.state.get<StoredConfirmation | null>(CONFIRMATION_KEY(id), null);
    if (stored) await deps.db.state.set(CONFIRMATION_KEY(id), null);
    return stored;
  }

  return {
    reply(request) {
      const text = request.userName ? `[from ${request.userName}] ${request.text}` : request.text;
      return serialized(request.conversationId, () => turn(request.conversationId, text, request.actor, request.projectId ?? null, request));
    },

    async confirm(id, actor) {
      const pending = await takeConfirmation(id);
      if (!pending) return { text: 'That request was already confirmed, cancelled or has expired.', runs: [], pendingConfirmations: [] };
      const handler = deps.createHandler();
      handler.activeProjectId = pending.projectId;
      const result = await handler.execute(pending.command, pending.args, actor);
      const note = `[${actor.userId ? `<@${actor.userId}>` : 'A person'} confirmed ${pending.command}; result: ${JSON.stringify(result)}] Tell the team the outcome in one sentence.`;
      const reply = await serialized(pending.conversationId, () => turn(pending.conversationId, note, actor, pending.projectId));
      return { ...reply, runs: [{ command: pending.command, args: pending.args, result }, ...reply.runs] };
    },

    async cancel(id, actor) {
      const pending = await takeConfirmation(id);
      if (!pending) return { text: 'That request was already confirmed, cancelled or has expired.', runs: [], pendingConfirmations: [] };
      const text = `Cancelled: ${pending.summary}. Nothing was changed.`;
      await serialized(pending.conversationId, async () => {
        const stored = await deps.db.chatThreads.load(pending.conversationId);
        const who = actor.userId ? `<@${actor.userId}>` : 'A person';
        const turns = [...stored.turns, { role: 'user', content: `[${who} cancelled ${pending.command}]` }, { role: 'assistant', content: text }];
        await deps.db.chatThreads.save(pending.conversationId, { summary: stored.summary, turns });
      });
      return { text, runs: [], pendingConfirmations: [] };
    },
  };
}
