import type { AnyChunk, KnownBlock, TaskUpdateChunk } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ChatToolCall } from '../../chat/agent';
import { capBlocks, esc, LIMITS } from '../blocks/common';
import { classicFeedbackBlock, nativeFeedbackBlock } from './feedback';
import { slackErrorCode, type SlackFeatures } from './features';

/** Where a chat reply goes and who it answers (Slack addresses a stream to a person outside DMs). */
export interface ReplyTarget {
  channel: string;
  threadTs: string;
  userId: string;
  teamId?: string;
}

/** A finished chat reply, rendered for both paths. */
export interface FinishedReply {
  /** The answer as escaped mrkdwn (markdownToMrkdwn), streamed in pieces on the native path. */
  mrkdwn: string;
  /** The message's fallback text. */
  text: string;
  /** The answer as blocks, for the classic path. */
  answerBlocks: KnownBlock[];
  /** What follows the answer on both paths: result cards, Confirm / Cancel. */
  extras: KnownBlock[];
  /** The conversation the feedback buttons rate. */
  conversationId: string;
}

type Mode = 'stream' | 'post' | 'classic';

const LOADING_MESSAGES = ['Reading the queue…', 'Looking at the projects…', 'Thinking it through…'];
/** Characters per appendStream call: small enough to read as it arrives, far below Slack's 12,000. */
const STREAM_PIECE = 1200;
const BAD_BLOCKS = new Set(['invalid_blocks', 'invalid_blocks_format']);

const TASK_STATUS: Record<ChatToolCall['state'], TaskUpdateChunk['status']> = {
  running: 'in_progress',
  done: 'complete',
  failed: 'error',
  held: 'pending',
};

/** A step's title: the command's name, or a plain word when the model named something that is not one of ours. */
function stepTitle(call: ChatToolCall): string {
  const name = /^[a-z][a-z0-9_]{0,60}$/.test(call.command) ? call.command.replace(/_/g, ' ') : 'unknown command';
  return call.state === 'held' ? `${name} (waiting for your Confirm)` : name;
}

/** Escaped mrkdwn in pieces of about STREAM_PIECE characters, cut at line ends (never inside an entity). */
export function streamPieces(mrkdwn: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const line of mrkdwn.split('\n')) {
    const next = current ? `${current}\n${line}` : line;
    if (current && next.length > STREAM_PIECE) {
      pieces.push(`${current}\n`);
      current = line;
    } else current = next;
  }
  if (current) pieces.push(current);
  return pieces.length ? pieces : ['…'];
}

/**
 * How one chat reply reaches Slack. Native: Slack's "thinking" status with loading messages
 * while the model works, then a streamed message (tool calls as task steps, the answer in
 * pieces) that ends with the result cards and feedback buttons. Classic (a workspace that
 * refuses those methods): a placeholder edited with the progress and then replaced by the reply.
 */
export class ReplySurface {
  private mode: Mode = 'classic';
  private placeholderTs: string | null = null;
  private streamTs: string | null = null;
  private lastStatus = '';

  private constructor(
    private readonly client: WebClient,
    private readonly features: SlackFeatures,
    private readonly target: ReplyTarget,
    private readonly log: (message: string) => void,
  ) {}

  static async open(client: WebClient, features: SlackFeatures, target: ReplyTarget, log: (m: string) => void): Promise<ReplySurface> {
    const surface = new ReplySurface(client, features, target, log);
    await surface.start();
    return surface;
  }

  private async start(): Promise<void> {
    this.lastStatus = 'Thinking…';
    if (await this.nativeStatus('Thinking…', LOADING_MESSAGES)) {
      this.mode = (await this.features.usable('streaming')) ? 'stream' : 'post';
      return;
    }
    this.mode = 'classic';
    const posted = await this.client.chat.postMessage({
      channel: this.target.channel,
      thread_ts: this.target.threadTs,
      text: ':thought_balloon: Thinking…',
    });
    this.placeholderTs = posted.ts ?? null;
  }

  /** Sets Slack's status line; false when the workspace does not offer it (or the call failed). */
  private async nativeStatus(status: string, loadingMessages?: string[]): Promise<boolean> {
    if (!(await this.features.usable('assistant_status'))) return false;
    try {
      const tried = await this.features.attempt('assistant_status', 'assistant.threads.setStatus', () =>
        this.client.assistant.threads.setStatus({
          channel_id: this.target.channel,
          thread_ts: this.target.threadTs,
          status,
          ...(loadingMessages && { loading_messages: loadingMessages }),
        }),
      );
      return tried.ok;
    } catch (err) {
      this.log(`Could not set the reply status in ${this.target.channel}: ${slackErrorCode(err) ?? String(err)}`);
      return false;
    }
  }

  /** What the agent is doing now ("Running list_tasks…"), while no answer is shown yet. */
  async progress(status: string): Promise<void> {
    if (status === this.lastStatus || this.streamTs) return;
    this.lastStatus = status;
    if (this.mode !== 'classic') {
      // The status names the tools the model asked for: no markup from it reaches Slack.
      await this.nativeStatus(status.replace(/[<>&]/g, ''));
      return;
    }
    if (!this.placeholderTs) return;
    await this.client.chat
      .update({ channel: this.target.channel, ts: this.placeholderTs, text: `:thought_balloon: ${esc(status)}` })
      .catch(() => undefined);
  }

  /** A tool call started or ended: a task step of the streamed reply (the classic path shows it in progress()). */
  async toolCall(call: ChatToolCall): Promise<void> {
    if (this.mode !== 'stream') return;
    const chunk: TaskUpdateChunk = { type: 'task_update', id: call.id, title: stepTitle(call), status: TASK_STATUS[call.state] };
    await this.streamChunks([chunk]).catch((err) => this.log(`Could not stream a step in ${this.target.channel}: ${String(err)}`));
  }

  /** Starts the stream with `chunks`, or appends them; false when streaming is refused (the reply is then posted). */
  private async streamChunks(chunks: AnyChunk[]): Promise<boolean> {
    if (this.streamTs) {
      await this.client.chat.appendStream({ channel: this.target.channel, ts: this.streamTs, chunks });
      return true;
    }
    const tried = await this.features.attempt('streaming', 'chat.startStream', () =>
      this.client.chat.startStream({
        channel: this.target.channel,
        thread_ts: this.target.threadTs,
        recipient_user_id: this.target.userId,
        ...(this.target.teamId && { recipient_team_id: this.target.teamId }),
        task_display_mode: 'timeline',
        chunks,
      }),
    );
    if (!tried.ok || !tried.value.ts) {
      this.mode = 'post';
      return false;
    }
    this.streamTs = tried.value.ts;
    return true;
  }

  /** Shows the finished reply: the end of the stream, a new message, or the placeholder replaced. */
  async finish(reply: FinishedReply): Promise<void> {
    if (this.mode === 'stream') {
      try {
        if (await this.finishStream(reply)) return;
      } catch (err) {
        // A stream that broke half way: the whole answer as a message, so nothing is lost.
        this.log(`Streaming a reply in ${this.target.channel} failed (${slackErrorCode(err) ?? String(err)}); posting it instead.`);
        this.mode = 'post';
      }
    }
    const blocks = capBlocks([...reply.answerBlocks, ...reply.extras], LIMITS.blocksPerMessage - 1);
    await this.withFeedback(this.mode === 'classic' && this.placeholderTs ? 'chat.update' : 'chat.postMessage', reply, (feedback) =>
      this.mode === 'classic' && this.placeholderTs
        ? this.client.chat.update({ channel: this.target.channel, ts: this.placeholderTs, text: reply.text, blocks: [...blocks, feedback] })
        : this.client.chat.postMessage({
            channel: this.target.channel,
            thread_ts: this.target.threadTs,
            text: reply.text,
            blocks: [...blocks, feedback],
          }),
    );
  }

  private async finishStream(reply: FinishedReply): Promise<boolean> {
    for (const piece of streamPieces(reply.mrkdwn)) {
      if (!(await this.streamChunks([{ type: 'markdown_text', text: piece }]))) return false;
    }
    const ts = this.streamTs as string;
    const extras = capBlocks(reply.extras, LIMITS.blocksPerMessage - 1);
    await this.withFeedback('chat.stopStream', reply, (feedback) =>
      this.client.chat.stopStream({ channel: this.target.channel, ts, blocks: [...extras, feedback] }),
    );
    return true;
  }

  /**
   * Sends with Slack's feedback buttons, or with our classic buttons when the workspace refuses
   * the feedback block (remembered like the other features).
   */
  private async withFeedback(method: string, reply: FinishedReply, send: (feedback: KnownBlock) => Promise<unknown>): Promise<void> {
    if (await this.features.usable('feedback_buttons')) {
      try {
        await send(nativeFeedbackBlock(reply.conversationId));
        await this.features.confirmNative('feedback_buttons');
        return;
      } catch (err) {
        const code = slackErrorCode(err);
        if (!code || !BAD_BLOCKS.has(code)) throw err;
        await this.features.fallBack('feedback_buttons', method, code);
      }
    }
    await send(classicFeedbackBlock(reply.conversationId));
  }

  /** Says the reply failed (`mrkdwn` is ours, values escaped), wherever the reply was going. */
  async fail(mrkdwn: string): Promise<void> {
    if (this.streamTs) {
      await this.client.chat.stopStream({
        channel: this.target.channel,
        ts: this.streamTs,
        chunks: [{ type: 'markdown_text', text: mrkdwn }],
      });
    } else if (this.mode === 'classic' && this.placeholderTs) {
      await this.client.chat.update({ channel: this.target.channel, ts: this.placeholderTs, text: mrkdwn });
    } else {
      await this.client.chat.postMessage({ channel: this.target.channel, thread_ts: this.target.threadTs, text: mrkdwn });
    }
  }
}
