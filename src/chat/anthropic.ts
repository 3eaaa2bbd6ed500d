import Anthropic from '@anthropic-ai/sdk';
import { wellFormed } from '../util/whole-characters';
import { ModelCallError, type ChatContentBlock, type ChatProvider, type ChatResponse, type CreateMessageRequest } from '../model/provider';

export interface AnthropicProviderOptions {
  apiKey: string;
  baseUrl?: string;
  model: string;
  /** SDK retries for 408/409/429/5xx and connection errors (default 2), honouring retry-after. */
  maxRetries?: number;
}

/** ChatProvider over the Anthropic SDK, with prompt caching on the system prompt and tools. */
export class AnthropicChatProvider implements ChatProvider {
  readonly model: string;
  private readonly client: Anthropic;

  constructor(options: AnthropicProviderOptions) {
    this.model = options.model;
    this.client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseUrl, maxRetries: options.maxRetries ?? 2 });
  }

  async createMessage(request: CreateMessageRequest): Promise<ChatResponse> {
    const tools = request.tools?.map((tool, i, all) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema,
      ...(i === all.length - 1 && { cache_control: { type: 'ephemeral' as const } }),
    }));
    const response = await this.client.messages
      .create(
        {
          model: request.model ?? this.model,
          max_tokens: request.maxTokens,
          ...(request.system && {
            system: [{ type: 'text' as const, text: wellFormed(request.system), cache_control: { type: 'ephemeral' as const } }],
          }),
          ...(tools && tools.length > 0 && { tools }),
          // The API refuses a whole request for half a character anywhere in it, wherever that text came from.
          messages: wellFormedDeep(request.messages) as Anthropic.Messages.MessageParam[],
        },
        { signal: request.signal },
      )
      .catch((err: unknown) => {
        throw modelCallError(err);
      });
    const content: ChatContentBlock[] = [];
    for (const block of response.content ?? []) {
      // An empty text block cannot be sent back in the next request, so it is dropped here.
      if (block.type === 'text') {
        if (block.text.trim()) content.push({ type: 'text', text: block.text });
      } else if (block.type === 'tool_use') content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    }
    const usage = response.usage ?? ({} as Anthropic.Messages.Usage);
    return {
      text: content
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('\n')
        .trim(),
      toolUses: content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : [])),
      content,
      stopReason: response.stop_reason ?? null,
      model: response.model,
      usage: {
        inputTokens: usage.input_tokens ?? 0,
        outputTokens: usage.output_tokens ?? 0,
        cacheReadTokens: usage.cache_read_input_tokens ?? 0,
        cacheCreationTokens: usage.cache_creation_input_tokens ?? 0,
      },
    };
  }
}

/** The SDK's error, recognised by its class, as the provider-neutral ModelCallError. */
export function modelCallError(err: unknown): unknown {
  if (!(err instanceof Anthropic.APIError)) return err;
  const message = err.message;
  if (err instanceof Anthropic.APIUserAbortError) return new ModelCallError('cancelled', message);
  if (err instanceof Anthropic.APIConnectionError) return new ModelCallError('unreachable', message);
  const status = err.status;
  if (err instanceof Anthropic.AuthenticationError || err instanceof Anthropic.PermissionDeniedError)
    return new ModelCallError('auth', message, status);
  if (err instanceof Anthropic.RateLimitError) return new ModelCallError('rate_limited', message, status);
  if (status === 529) return new ModelCallError('overloaded', message, status);
  if (err instanceof Anthropic.InternalServerError) return new ModelCallError('server', message, status);
  return new ModelCallError('refused', message, status);
}

/** Every string in a request's messages made well-formed (see wellFormed); other values as they are. */
function wellFormedDeep(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedDeep);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, wellFormedDeep(inner)]));
  }
  return value;
}
