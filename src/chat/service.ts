import type { Actor, CommandResult } from '../commands/catalog';

/** One person's message to the chat agent, from Slack (a mention, a DM, free-text `/aq`) or the CLI. */
export interface ChatRequest {
  /** Memory key: `<channel>:<thread_ts>` in Slack, so each thread is its own conversation. */
  conversationId: string;
  text: string;
  actor: Actor;
  userName?: string;
  /** The project the conversation defaults to (the channel's linked project), if any. */
  projectId?: string | null;
  /** Called while the agent works ("Thinking…", "Running list_tasks…"), for a status line. */
  onProgress?: (status: string) => void | Promise<void>;
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
}

export interface ChatService {
  reply(request: ChatRequest): Promise<ChatReply>;
  /** Runs a confirmed command (as `actor`, so admin rules apply) and tells the agent the outcome. */
  confirm(confirmationId: string, actor: Actor): Promise<ChatReply>;
  /** Drops a pending confirmation; the agent is told it was cancelled. */
  cancel(confirmationId: string, actor: Actor): Promise<ChatReply>;
}
