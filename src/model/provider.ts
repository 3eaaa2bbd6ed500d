/**
 * A chat model, provider-neutral: the chat agent, the LLM plan parser and hooks talk to this,
 * and `anthropic.ts` implements it with the Anthropic SDK.
 */

export interface ChatToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the tool's input object. */
  inputSchema: Record<string, unknown>;
}

export interface ChatToolUse {
  id: string;
  name: string;
  input: unknown;
}

export type ChatContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string | ChatContentBlock[];
}

export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

export interface ChatResponse {
  /** The text blocks joined. */
  text: string;
  toolUses: ChatToolUse[];
  /** Every block, in order, to append to the conversation as the assistant turn. */
  content: ChatContentBlock[];
  stopReason: string | null;
  usage: ChatUsage;
  model?: string;
}

export interface CreateMessageRequest {
  messages: ChatMessage[];
  system?: string;
  tools?: ChatToolDefinition[];
  maxTokens: number;
  model?: string;
  signal?: AbortSignal;
}

export interface ChatProvider {
  readonly model: string;
  createMessage(request: CreateMessageRequest): Promise<ChatResponse>;
}

export function totalTokens(usage: ChatUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheCreationTokens;
}

/** Why a model call failed, whatever the provider. */
export type ModelFailureKind = 'cancelled' | 'unreachable' | 'auth' | 'rate_limited' | 'overloaded' | 'server' | 'refused';

/** A failed model call, as a provider reports it (each provider maps its SDK's errors to this). */
export class ModelCallError extends Error {
  constructor(
    readonly kind: ModelFailureKind,
    message: string,
    /** The HTTP status, when the service answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}
