/**
 * The Web API half of the fake Slack: request body parsing and the default answer of each
 * method. FakeSlack (fake-slack.ts) owns the server and the call log.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';

const RAW = Symbol('raw-http-reply');

/** The bot scopes manifest.yml asks for: the fake's token has those and no others, as an installed app would. */
function manifestScopes(): Set<string> {
  const manifest = readFileSync(path.join(__dirname, '..', '..', 'manifest.yml'), 'utf8');
  const block = /\n {4}bot:\n((?: {6}- \S+\n)+)/.exec(manifest)?.[1] ?? '';
  return new Set([...block.matchAll(/- (\S+)/g)].map((m) => m[1]));
}

/** The scope reading a conversation's history needs: a DM, a private channel (ids starting with G here), a public one. */
function historyScope(channel: string): string {
  return channel.startsWith('D') ? 'im:history' : channel.startsWith('G') ? 'groups:history' : 'channels:history';
}

/** A reply with its own HTTP status and headers (e.g. a 429 with retry-after). */
export interface RawReply {
  [RAW]: true;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Builds a RawReply: `httpReply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' })`. */
export function httpReply(status: number, body: unknown = {}, headers: Record<string, string> = {}): RawReply {
  return { [RAW]: true, status, headers, body };
}

export function isRawReply(value: unknown): value is RawReply {
  return typeof value === 'object' && value !== null && RAW in value;
}

/**
 * Parses a Web API request body. The WebClient posts application/x-www-form-urlencoded with
 * object arguments (`blocks`, `view`, `attachments`) JSON-encoded inside form fields, so any
 * field that looks like JSON is parsed. JSON bodies (used by `respond()` and some clients) are
 * parsed as such.
 */
export function parseSlackBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes('application/json')) return safeJson(raw) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    out[key] = /^\s*[[{]/.test(value) ? safeJson(value) : value;
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sensible `{ ok: true, … }` answers, with monotonic message timestamps and channel ids. */
export class SlackDefaults {
  private tsCounter = 100;
  private channelCounter = 0;
  private viewCounter = 0;
  private fileCounter = 0;
  /** Messages by thread (`channel:thread_ts`, root first), what conversations.replies answers. */
  readonly threads = new Map<string, Array<Record<string, unknown>>>();
  private scopes: Set<string> | undefined;

  constructor(
    private readonly wsUrl: () => string,
    private readonly baseUrl: () => string = () => 'http://127.0.0.1',
  ) {}

  /** A unique, increasing message ts like "1700000000.000100". */
  nextTs(): string {
    this.tsCounter += 1;
    return `${1_700_000_000 + Math.floor(this.tsCounter / 1_000_000)}.${String(this.tsCounter % 1_000_000).padStart(6, '0')}`;
  }

  answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const channel = typeof args.channel === 'string' ? args.channel : 'C1';
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://example.slack.com/',
          team: 'example',
          user: 'aq',
          team_id: 'T1',
          user_id: 'UBOT',
          bot_id: 'BBOT',
          is_enterprise_install: false,
        };
      case 'apps.connections.open':
        return { ok: true, url: `${this.wsUrl()}/link?ticket=x` };
      case 'chat.postMessage': {
        const ts = this.nextTs();
        const message = this.message(args, ts);
        this.remember(channel, message);
        return { ok: true, channel, ts, message };
      }
      case 'chat.getPermalink': {
        const ts = String(args.message_ts ?? '');
        return { ok: true, channel, permalink: `https://example.slack.com/archives/${channel}/p${ts.replace('.', '')}` };
      }
      case 'chat.update':
        this.edit(channel, String(args.ts), args);
        return { ok: true, channel, ts: args.ts, text: args.text ?? '', message: this.message(args, String(args.ts)) };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: this.nextTs() };
      case 'chat.delete':
        return { ok: true, channel, ts: args.ts };
      case 'views.publish':
      case 'views.open':
      case 'views.update':
      case 'views.push':
        return { ok: true, view: this.view(args) };
      case 'conversations.create': {
        this.channelCounter += 1;
        const id = `C${String(this.channelCounter).padStart(4, '0')}`;
        return {
          ok: true,
          channel: {
            id,
            name: args.name,
            is_channel: true,
            is_private: args.is_private === 'true' || args.is_private === true,
            is_archived: false,
            created: 1_700_000_000,
            creator: 'UBOT',
          },
        };
      }
      case 'conversations.archive':
      case 'conversations.join':
      case 'conversations.invite':
      case 'conversations.setTopic':
      case 'conversations.setPurpose':
        return { ok: true, channel: { id: channel } };
      case 'conversations.info':
        return {
          ok: true,
          channel: {
            id: channel,
            name: `channel-${channel.toLowerCase()}`,
            is_channel: channel.startsWith('C'),
            is_im: channel.startsWith('D'),
            is_archived: false,
            is_member: true,
          },
        };
      case 'conversations.replies':
        return this.replies(channel, args);
      case 'conversations.history':
        return this.history(channel, args);
      case 'chat.startStream': {
        const ts = this.nextTs();
        return { ok: true, channel, ts };
      }
      case 'chat.appendStream':
        return { ok: true, channel, ts: args.ts };
      case 'chat.stopStream':
        return { ok: true, channel, ts: args.ts, message: this.message(args, String(args.ts)) };
      case 'agents.sessions.setStatus':
        return { ok: true, status: args.status };
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setTitle':
      case 'assistant.threads.setSuggestedPrompts':
      case 'reactions.add':
      case 'reactions.remove':
        return { ok: true };
      case 'files.getUploadURLExternal': {
        this.fileCounter += 1;
        const id = `F${String(this.fileCounter).padStart(4, '0')}`;
        return { ok: true, file_id: id, upload_url: `${this.baseUrl()}/upload/${id}` };
      }
      case 'files.completeUploadExternal': {
        const files = typeof args.files === 'string' ? (JSON.parse(args.files) as unknown[]) : ((args.files as unknown[]) ?? []);
        return { ok: true, files: files.map((f) => ({ ...(f as object), ...(args.channel_id ? { channels: [args.channel_id] } : {}) })) };
      }
      case 'conversations.open': {
        const user = typeof args.users === 'string' ? args.users.split(',')[0] : 'U1';
        return { ok: true, channel: { id: `D${user.replace(/^U/, '')}` } };
      }
      case 'users.info': {
        const id = typeof args.user === 'string' ? args.user : 'U1';
        return {
          ok: true,
          user: {
            id,
            team_id: 'T1',
            name: `user-${id.toLowerCase()}`,
            real_name: `User ${id}`,
            is_bot: id === 'UBOT',
            tz: 'UTC',
            profile: { display_name: `user-${id.toLowerCase()}` },
          },
        };
      }
      default:
        return { ok: true };
    }
  }

  /** Files a message under its thread (a top-level message starts one), as Slack keeps them. */
  remember(channel: string, message: Record<string, unknown>): void {
    const threadTs = String(message.thread_ts ?? message.ts);
    const key = `${channel}:${threadTs}`;
    const thread = this.threads.get(key) ?? [];
    thread.push(message);
    thread.sort((a, b) => Number(a.ts) - Number(b.ts));
    this.threads.set(key, thread);
  }

  private edit(channel: string, ts: string, args: Record<string, unknown>): void {
    for (const [key, thread] of this.threads) {
      if (!key.startsWith(`${channel}:`)) continue;
      const found = thread.find((m) => m.ts === ts);
      if (found)
        Object.assign(
          found,
          { text: args.text ?? found.text },
          args.blocks !== undefined && { blocks: args.blocks },
          args.metadata !== undefined && { metadata: args.metadata },
        );
    }
  }

  /** conversations.replies: the thread's messages oldest first, `limit` per page, paged by cursor. */
  private replies(channel: string, args: Record<string, unknown>): Record<string, unknown> {
    const needed = historyScope(channel);
    this.scopes ??= manifestScopes();
    if (!this.scopes.has(needed)) return { ok: false, error: 'missing_scope', needed, provided: [...this.scopes].join(',') };
    const thread = this.threads.get(`${channel}:${String(args.ts)}`);
    if (!thread) return { ok: true, messages: [], has_more: false, response_metadata: { next_cursor: '' } };
    const limit = Number(args.limit ?? 1000) || 1000;
    const start = Number(args.cursor ?? 0) || 0;
    const page = thread.slice(start, start + limit);
    const more = start + limit < thread.length;
    return { ok: true, messages: page, has_more: more, response_metadata: { next_cursor: more ? String(start + limit) : '' } };
  }

  /**
   * conversations.history: the channel's top-level messages, newest first, between `oldest` and
   * `latest` (each end included only with `inclusive`), `limit` of them.
   */
  private history(channel: string, args: Record<string, unknown>): Record<string, unknown> {
    const needed = historyScope(channel);
    this.scopes ??= manifestScopes();
    if (!this.scopes.has(needed)) return { ok: false, error: 'missing_scope', needed, provided: [...this.scopes].join(',') };
    const inclusive = args.inclusive === true || args.inclusive === 'true';
    const latest = args.latest === undefined ? Infinity : Number(args.latest);
    const oldest = args.oldest === undefined ? -Infinity : Number(args.oldest);
    const roots = [...this.threads.entries()]
      .filter(([key]) => key.startsWith(`${channel}:`))
      .map(([key, thread]) => thread.find((m) => `${channel}:${String(m.ts)}` === key))
      .filter((m): m is Record<string, unknown> => m !== undefined)
      .filter((m) => {
        const ts = Number(m.ts);
        return (inclusive ? ts <= latest : ts < latest) && (inclusive ? ts >= oldest : ts > oldest);
      })
      .sort((a, b) => Number(b.ts) - Number(a.ts));
    const limit = Number(args.limit ?? 100) || 100;
    return { ok: true, messages: roots.slice(0, limit), has_more: roots.length > limit, response_metadata: { next_cursor: '' } };
  }

  private message(args: Record<string, unknown>, ts: string): Record<string, unknown> {
    return {
      type: 'message',
      user: 'UBOT',
      bot_id: 'BBOT',
      app_id: 'A1',
      team: 'T1',
      ts,
      text: args.text ?? '',
      ...(args.blocks !== undefined && { blocks: args.blocks }),
      ...(args.thread_ts !== undefined && { thread_ts: args.thread_ts }),
      ...(args.metadata !== undefined && { metadata: args.metadata }),
    };
  }

  private view(args: Record<string, unknown>): Record<string, unknown> {
    this.viewCounter += 1;
    const view = (typeof args.view === 'object' && args.view) || {};
    const id = typeof args.view_id === 'string' ? args.view_id : `V${String(this.viewCounter).padStart(4, '0')}`;
    return {
      id,
      team_id: 'T1',
      app_id: 'A1',
      bot_id: 'BBOT',
      hash: `${1_700_000_000 + this.viewCounter}.fakehash`,
      state: { values: {} },
      ...view,
    };
  }
}
