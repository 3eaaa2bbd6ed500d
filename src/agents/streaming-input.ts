import type { SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

/** A message someone sent a running task, waiting to be handed to its agent. */
export interface InboxMessage {
  id: number;
  text: string;
}

/** Where a run finds messages for its agent, across processes (the database). */
export interface AgentInbox {
  pending(): Promise<InboxMessage[]>;
  /** Marks the message as given to the agent; false when another run already took it. */
  claim(message: InboxMessage): Promise<boolean>;
}

export function userMessage(text: string): SDKUserMessage {
  return { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null };
}

/**
 * The prompt of a streaming-input session: the first message, then messages from the inbox as
 * they arrive. The CLI keeps the session open while this iterable is open, so it ends after
 * the last `result` it still expects (see `observe`).
 *
 * Which results to expect (measured, feasibility §8.3): a message given while a tool runs goes
 * into the same turn's next request (one result for both); a message given after a result
 * starts a new turn; one given while the model is answering goes into the next request if the
 * answer calls a tool, or starts a new turn after the result if it does not. So after a result
 * the input stays open while a message may still start a turn, for at most `graceMs` without a
 * new `system/init`.
 */
export class StreamingPrompt implements AsyncIterable<SDKUserMessage> {
  private queue: SDKUserMessage[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private toolRunning = false;
  /** Messages given while no tool ran, not yet seen taken up by a request or a new turn. */
  private unconfirmed = 0;
  private poller: NodeJS.Timeout | null = null;
  private grace: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    first: string,
    private readonly inbox: AgentInbox | undefined,
    pollMs: number,
    private readonly graceMs: number,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.queue.push(userMessage(first));
    if (inbox) this.poller = setInterval(() => void this.poll(), pollMs);
  }

  private push(message: SDKUserMessage): void {
    if (this.ended) return;
    this.queue.push(message);
    this.wake?.();
  }

  private async poll(): Promise<void> {
    if (this.polling || this.ended || !this.inbox) return;
    this.polling = true;
    try {
      for (const m of await this.inbox.pending()) {
        if (this.ended) break;
        if (!(await this.inbox.claim(m))) continue;
        if (!this.toolRunning) this.unconfirmed += 1;
        this.push(userMessage(m.text));
      }
    } catch (err) {
      this.onError(err);
    } finally {
      this.polling = false;
    }
  }

  /** Feeds the session's output in, to know when input may end. */
  observe(message: SDKMessage): void {
    if (message.type === 'system' && message.subtype === 'init') {
      this.unconfirmed = 0;
      this.clearGrace();
    } else if (message.type === 'assistant' && !message.parent_tool_use_id) {
      const content = message.message.content as Array<{ type: string }>;
      if (content.some((b) => b.type === 'tool_use')) {
        this.toolRunning = true;
        this.unconfirmed = 0;
      }
    } else if (message.type === 'user' && !message.parent_tool_use_id) {
      this.toolRunning = false;
    } else if (message.type === 'result') {
      this.toolRunning = false;
      if (this.unconfirmed === 0 && this.queue.length === 0) this.end();
      else if (!this.grace) this.grace = setTimeout(() => this.end(), this.graceMs);
    }
  }

  private clearGrace(): void {
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.poller) clearInterval(this.poller);
    this.clearGrace();
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    while (true) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}
