import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { FakeRooms } from './fake-slack-rooms';
import { FakeWorkObjects } from './fake-slack-work-objects';
import { FakeSocketMode, type EnvelopeAck, type SendEnvelopeOptions } from './fake-slack-socket';
import { httpReply, isRawReply, parseSlackBody, SlackDefaults, type RawReply } from './fake-slack-web';
import { signedHeaders } from './slack-signing';
import { describeViolations, validateCall, validateMessage, type Violation } from './slack-validator';

/** How long a wait for the app's next Slack call lasts before the test fails: generous, since it only bounds a stuck test and a loaded machine is slow. */
const WAIT_MS = 30_000;

export { httpReply, type RawReply } from './fake-slack-web';
export type { EnvelopeAck, SendEnvelopeOptions } from './fake-slack-socket';

/** One Web API call the fake received. */
export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
  /** The `authorization` header ("Bearer xoxb-…"), recorded, never checked. */
  authorization?: string;
  at: number;
}

/** One POST to a response_url (what `respond()` sends). */
export interface ResponsePost {
  id: string;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export type SlackAnswer = Record<string, unknown> | RawReply;
export type SlackHandler = (args: Record<string, unknown>, call: ApiCall) => SlackAnswer | Promise<SlackAnswer>;

export interface FakeSlackOptions {
  /** How often the Socket Mode server pings each connection (default 5 s). */
  pingIntervalMs?: number;
  /**
   * Every message, view and response_url POST is checked by slack-validator.ts; `close()` fails
   * the test when one broke a rule. Only tests of the fake itself send invalid payloads on purpose.
   */
  allowInvalidPayloads?: boolean;
}

/** A payload that broke a Block Kit limit or carried markup we did not write. */
export interface PayloadViolation extends Violation {
  /** `chat.postMessage`, `views.publish`, `response_url r1`, … */
  where: string;
}

/** An upload received at an upload_url (files.uploadV2's second step). */
export interface FileUploadSeen {
  fileId: string;
  content: string;
}

export interface PostToAppOptions {
  signingSecret: string;
  /** 'form' (default; slash commands and interactions) or 'json' (Events API). */
  contentType?: 'form' | 'json';
  badSignature?: boolean;
  /** Seconds added to the signed timestamp (e.g. -600 for a stale request). */
  timestampOffset?: number;
  /** Extra headers, e.g. { 'x-slack-retry-num': '1' }. */
  headers?: Record<string, string>;
  /** Path on the app; Bolt's default is /slack/events. */
  path?: string;
}

export interface AppResponse {
  status: number;
  body: string;
  elapsedMs: number;
}

/**
 * A loopback Slack on 127.0.0.1: the Web API at /api/<method> (every call recorded, answers
 * scriptable), a response_url sink at /response/<id>, and Socket Mode (apps.connections.open →
 * ws://…/link) on the same port. Also signs and posts requests to an app's HTTP receiver.
 */
export class FakeSlack {
  readonly calls: ApiCall[] = [];
  readonly responses: ResponsePost[] = [];
  readonly violations: PayloadViolation[] = [];
  readonly uploads: FileUploadSeen[] = [];
  readonly socketMode: FakeSocketMode;
  /** Task rooms (agents.conversations.*) and their canvases; `rooms.refuse(…)` plays a workspace without them. */
  readonly rooms = new FakeRooms();
  /** Work Objects (messages' metadata.entities, entity.presentDetails); `workObjects.refuse(…)` plays a workspace without them. */
  readonly workObjects = new FakeWorkObjects();
  private readonly scripted = new Map<string, { answer: SlackAnswer | SlackHandler; remaining: number }>();
  private readonly defaults: SlackDefaults;
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: http.Server,
    private readonly options: FakeSlackOptions,
  ) {
    this.defaults = new SlackDefaults(
      () => this.wsUrl,
      () => this.url,
    );
    this.socketMode = new FakeSocketMode(server, options.pingIntervalMs);
  }

  static async start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
    let fake!: FakeSlack;
    const server = http.createServer((req, res) => void fake.handle(req, res));
    fake = new FakeSlack(server, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** For `clientOptions.slackApiUrl` (trailing slash included). */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  responseUrl(id = 'r1'): string {
    return `${this.url}/response/${id}`;
  }

  /**
   * Scripts a method's answer: an object, a RawReply (`httpReply(429, …, {'retry-after': '1'})`),
   * or a handler `(args, call) => answer`. With `times`, the script is used that many times and
   * the default answer comes back afterwards.
   */
  setResponse(method: string, answer: SlackAnswer | SlackHandler, options: { times?: number } = {}): void {
    this.scripted.set(method, { answer, remaining: options.times ?? Infinity });
  }

  /**
   * A person's (or another app's) message as Slack keeps it, so conversations.replies finds it;
   * returns the message event Slack would deliver for it (wrap it with eventCallback).
   */
  userSays(input: { channel: string; text: string; user?: string; threadTs?: string; ts?: string; extra?: Record<string, unknown> }) {
    const ts = input.ts ?? this.defaults.nextTs();
    const message = {
      type: 'message' as const,
      user: input.user ?? 'U1',
      text: input.text,
      ts,
      team: 'T1',
      ...(input.threadTs && { thread_ts: input.threadTs }),
      ...input.extra,
    };
    this.defaults.remember(input.channel, message);
    return {
      ...message,
      channel: input.channel,
      event_ts: ts,
      // Slack's event says what kind of conversation it is: a DM, a private channel (here: ids starting with G), a public one.
      channel_type: input.channel.startsWith('D')
        ? ('im' as const)
        : input.channel.startsWith('G')
          ? ('group' as const)
          : ('channel' as const),
    };
  }

  /** The messages of a thread as the fake keeps them (root first). */
  threadMessages(channel: string, threadTs: string): Array<Record<string, unknown>> {
    return this.defaults.threads.get(`${channel}:${threadTs}`) ?? [];
  }

  clearResponse(method: string): void {
    this.scripted.delete(method);
  }

  callsTo(method: string): ApiCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  clearResponses(): void {
    this.responses.length = 0;
  }

  /** Resolves when `predicate` holds (checked on every request and every 50 ms), else rejects listing what was seen. */
  async waitFor(predicate: () => boolean, what = 'a condition', timeoutMs = WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`FakeSlack: timed out after ${timeoutMs} ms waiting for ${what}.\n${this.describe()}`);
      await this.nextChange(Math.min(50, left));
    }
  }

  /** The first call to `method` matching `predicate` (already made or still to come). */
  async waitForCall(method: string, predicate: (call: ApiCall) => boolean = () => true, timeoutMs = WAIT_MS): Promise<ApiCall> {
    const find = () => this.calls.find((c) => c.method === method && predicate(c));
    await this.waitFor(() => find() !== undefined, `a ${method} call`, timeoutMs);
    return find() as ApiCall;
  }

  /** The first response_url POST matching `predicate`. */
  async waitForResponse(predicate: (response: ResponsePost) => boolean = () => true, timeoutMs = WAIT_MS): Promise<ResponsePost> {
    const find = () => this.responses.find(predicate);
    await this.waitFor(() => find() !== undefined, 'a response_url POST', timeoutMs);
    return find() as ResponsePost;
  }

  // --- Socket Mode --------------------------------------------------------------------------

  /** Kept for older call sites: Socket Mode is always served. */
  enableSocketMode(): void {}

  async waitForSocketConnection(timeoutMs = WAIT_MS): Promise<void> {
    await this.waitFor(() => this.socketMode.isConnected(), 'a Socket Mode connection', timeoutMs);
  }

  /** Alias of waitForSocketConnection. */
  waitForSocket(timeoutMs = WAIT_MS): Promise<void> {
    return this.waitForSocketConnection(timeoutMs);
  }

  /** Sends `{envelope_id, type, payload, accepts_response_payload}`; resolves with the app's ack. */
  sendEnvelope(type: string, payload: unknown, options: SendEnvelopeOptions | number = {}): Promise<EnvelopeAck> {
    return this.socketMode.sendEnvelope(type, payload, typeof options === 'number' ? { timeoutMs: options } : options);
  }

  // --- HTTP mode ----------------------------------------------------------------------------

  /**
   * Posts to an app's HTTP receiver as Slack does: signed, to /slack/events. `body` may be the
   * raw string, or an object (JSON-encoded for 'json', form-encoded for 'form').
   */
  static async postToApp(appBaseUrl: string, body: string | Record<string, unknown>, options: PostToAppOptions): Promise<AppResponse> {
    const json = options.contentType === 'json';
    const raw = typeof body === 'string' ? body : json ? JSON.stringify(body) : formEncode(body);
    const started = performance.now();
    const response = await fetch(`${appBaseUrl.replace(/\/$/, '')}${options.path ?? '/slack/events'}`, {
      method: 'POST',
      headers: {
        'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        ...signedHeaders(raw, options),
        ...options.headers,
      },
      body: raw,
    });
    const text = await response.text();
    return { status: response.status, body: text, elapsedMs: performance.now() - started };
  }

  postToApp(appBaseUrl: string, body: string | Record<string, unknown>, options: PostToAppOptions): Promise<AppResponse> {
    return FakeSlack.postToApp(appBaseUrl, body, options);
  }

  /** Closes the fake; throws (failing the test) when any payload broke a Slack rule. */
  async close(): Promise<void> {
    for (const wake of this.waiters) wake();
    await this.socketMode.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.violations.length && !this.options.allowInvalidPayloads) {
      throw new Error(
        `FakeSlack: the app sent payloads Slack would reject or that carry markup we did not write:\n${this.violations.map((v) => describeViolations(v.where, [v])).join('\n')}`,
      );
    }
  }

  /** Returns and forgets the violations seen so far (for tests that send invalid payloads on purpose). */
  takeViolations(): PayloadViolation[] {
    return this.violations.splice(0);
  }

  private check(where: string, violations: Violation[]): void {
    for (const v of violations) this.violations.push({ where, ...v });
  }

  // --- internals ----------------------------------------------------------------------------

  private nextChange(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private describe(): string {
    const calls = this.calls.map((c) => `  ${c.method}${summarize(c.args)}`).join('\n') || '  (none)';
    const responses = this.responses.map((r) => `  ${r.id}${summarize(r.body)}`).join('\n') || '  (none)';
    return `Web API calls seen:\n${calls}\nresponse_url POSTs seen:\n${responses}\nSocket Mode connected: ${this.socketMode.isConnected()}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const raw = await readBody(req);
      const path = new URL(req.url ?? '/', this.url).pathname;
      const body = parseSlackBody(raw, req.headers['content-type']);
      let reply: SlackAnswer;
      if (path.startsWith('/response/')) {
        const id = decodeURIComponent(path.slice('/response/'.length));
        this.responses.push({ id, body, headers: req.headers, at: Date.now() });
        this.check(`response_url ${id}`, validateMessage(body));
        reply = { ok: true };
      } else if (path.startsWith('/upload/')) {
        this.uploads.push({
          fileId: decodeURIComponent(path.slice('/upload/'.length)),
          content: await uploadedContent(raw, req.headers['content-type']),
        });
        reply = { ok: true };
      } else if (path.startsWith('/api/')) {
        const call: ApiCall = {
          method: path.slice('/api/'.length),
          args: body,
          headers: req.headers,
          authorization: req.headers.authorization,
          at: Date.now(),
        };
        this.calls.push(call);
        this.check(call.method, validateCall(call.method, call.args));
        reply = await this.answer(call);
      } else {
        reply = httpReply(404, { ok: false, error: 'unknown_path', path });
      }
      const { status, headers, payload } = isRawReply(reply)
        ? { status: reply.status, headers: reply.headers, payload: reply.body }
        : { status: 200, headers: {}, payload: reply };
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(payload));
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error: 'fake_slack_error', detail: String(error) }));
    } finally {
      this.notify();
    }
  }

  /** Archiving a room with a summary message shares it back as a reply on the room's origin message, as Slack does. */
  private shareSummary(channelId: string): void {
    const room = this.rooms.rooms.get(channelId);
    if (!room?.origin || !room.summary_message_ts) return;
    const summary = this.threadMessages(channelId, room.summary_message_ts)[0];
    if (!summary) return;
    this.defaults.remember(room.origin.channel_id, {
      ...summary,
      ts: this.defaults.nextTs(),
      thread_ts: room.origin.message_ts,
      shared_from: { channel: channelId, ts: room.summary_message_ts },
    });
  }

  private async answer(call: ApiCall): Promise<SlackAnswer> {
    const script = this.scripted.get(call.method);
    if (script && script.remaining > 0) {
      script.remaining -= 1;
      return typeof script.answer === 'function' ? script.answer(call.args, call) : script.answer;
    }
    if (this.rooms.refusesMessage(call.method, call.args)) return { ok: false, error: 'is_archived' };
    if (this.rooms.handles(call.method)) {
      const answer = this.rooms.answer(call.method, call.args);
      if (call.method === 'agents.conversations.archive' && answer.ok) this.shareSummary(String(call.args.channel_id));
      return answer;
    }
    return this.workObjects.answer(call.method, call.args) ?? this.defaults.answer(call.method, call.args);
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The file in an upload_url POST: the WebClient sends it as multipart form data. */
async function uploadedContent(raw: string, contentType: string | undefined): Promise<string> {
  if (!contentType?.includes('multipart/form-data')) return raw;
  const form = await new Request('http://upload.local/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: raw,
  }).formData();
  for (const value of form.values()) if (typeof value !== 'string') return value.text();
  return String(form.values().next().value ?? '');
}

function formEncode(fields: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return params.toString();
}

function summarize(args: Record<string, unknown>): string {
  const parts = ['channel', 'text', 'user_id', 'name', 'ts', 'thread_ts', 'response_type']
    .filter((key) => args[key] !== undefined)
    .map((key) => `${key}=${JSON.stringify(args[key]).slice(0, 80)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
