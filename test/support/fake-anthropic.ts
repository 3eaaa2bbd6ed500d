import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolUse {
  name: string;
  input: unknown;
  id?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One assistant turn: optional text, then tool_use blocks. */
export interface ScriptedTurn {
  text?: string;
  toolUses?: ScriptedToolUse[];
  /** Default: 'tool_use' when there are tool uses, else 'end_turn'. */
  stopReason?: string;
  usage?: Usage;
  /** Hold the answer this long (for timeouts, aborts, "slow model" tests). */
  delayMs?: number;
}

/** An HTTP error answer, in the API's `{type:'error', error:{type, message}}` shape. */
export interface ScriptedError {
  error: { status: number; type: string; message: string; retryAfter?: number; headers?: Record<string, string> };
  delayMs?: number;
}

export type ScriptedAnswer = ScriptedTurn | ScriptedError;
export type Script = ScriptedAnswer | ((request: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>);

export interface MessagesBody extends Record<string, unknown> {
  model?: string;
  messages?: Array<{ role: string; content: unknown }>;
  system?: unknown;
  tools?: unknown[];
  stream?: boolean;
}

export interface RecordedRequest {
  path: string;
  /** The query string, '?beta=true' from the Claude Code CLI, '' from the SDK. */
  query: string;
  headers: http.IncomingHttpHeaders;
  body: MessagesBody;
  at: number;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: unknown;
  is_error?: boolean;
}

export interface FakeAnthropicOptions {
  /**
   * Requests without `tools` (e.g. the CLI's session-title call) get `untooledText` and do not
   * consume the script. Default false: every request consumes the next scripted turn.
   */
  consumeOnlyWithTools?: boolean;
  untooledText?: string;
}

export const UNSCRIPTED_TEXT = '(fake: no scripted turn)';
const DEFAULT_USAGE: Required<Usage> = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/**
 * A loopback Messages API that plays a script. POST /v1/messages is routed on the path alone
 * (the Claude Code CLI adds `?beta=true`); the answer is SSE when the body says `stream: true`
 * (the CLI falls back to a second, non-streaming request if it gets JSON there) and JSON
 * otherwise. HEAD / and HEAD /api/hello (the CLI's connectivity check) answer 200.
 */
/** A scripted answer's delay under way: its timer, and how to end it. */
interface ScriptedDelay {
  resolve: () => void;
  timer: NodeJS.Timeout;
}

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  /** Requests answered with the default text because the script was empty. */
  unscriptedCount = 0;
  private readonly script: Script[] = [];
  private readonly waiters = new Set<() => void>();
  /** Scripted delays still waiting: `close` ends them. */
  private readonly delays = new Set<ScriptedDelay>();
  private messageIds = 0;
  private toolIds = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly options: FakeAnthropicOptions,
  ) {}

  static async start(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
    let fake!: FakeAnthropic;
    const server = http.createServer((req, res) => void fake.handle(req, res));
    fake = new FakeAnthropic(server, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** Base URL for `new Anthropic({ baseURL })` and ANTHROPIC_BASE_URL (no trailing slash). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  enqueue(...turns: Script[]): void {
    this.script.push(...turns);
  }

  /** Scripted turns not yet played. */
  get pending(): number {
    return this.script.length;
  }

  lastRequest(): RecordedRequest {
    const last = this.requests.at(-1);
    if (!last) throw new Error('The fake Messages API has received no request.');
    return last;
  }

  /** The tool_result blocks of a request's last user message. */
  toolResultsIn(request: RecordedRequest): ToolResultBlock[] {
    const last = [...(request.body.messages ?? [])].reverse().find((m) => m.role === 'user');
    if (!last || !Array.isArray(last.content)) return [];
    return (last.content as Array<{ type?: string }>).filter((b) => b?.type === 'tool_result') as ToolResultBlock[];
  }

  /** Resolves with the request log once it holds at least `n` requests. */
  async waitForRequests(n: number, timeoutMs = 10_000): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `FakeAnthropic: waited ${timeoutMs} ms for ${n} request(s), got ${this.requests.length}; ${this.script.length} scripted turn(s) left.`,
        );
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(100, left));
        this.waiters.add(done);
      });
    }
    return this.requests;
  }

  async close(): Promise<void> {
    // A scripted delay still running would keep the process (a Jest worker) alive after the test.
    for (const delay of [...this.delays]) this.endDelay(delay);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private endDelay(delay: ScriptedDelay): void {
    clearTimeout(delay.timer);
    this.delays.delete(delay);
    delay.resolve();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'HEAD' && (url.pathname === '/' || url.pathname === '/api/hello')) {
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
      sendError(res, { status: 404, type: 'not_found_error', message: `fake Messages API: no route for ${req.method} ${url.pathname}` });
      return;
    }
    let body: MessagesBody;
    try {
      body = raw ? (JSON.parse(raw) as MessagesBody) : {};
    } catch {
      sendError(res, { status: 400, type: 'invalid_request_error', message: 'fake Messages API: the body is not JSON' });
      return;
    }
    // The real API refuses half of a character written as two UTF-16 units (a cut through an emoji).
    if (holdsLoneSurrogate(body)) {
      sendError(res, {
        status: 400,
        type: 'invalid_request_error',
        message: 'The request body is not valid JSON: no low surrogate in string',
      });
      return;
    }
    const request: RecordedRequest = { path: url.pathname, query: url.search, headers: req.headers, body, at: Date.now() };
    this.requests.push(request);
    for (const wake of [...this.waiters]) wake();

    let answer: ScriptedAnswer;
    const untooled = !Array.isArray(body.tools) || body.tools.length === 0;
    if (this.options.consumeOnlyWithTools && untooled) {
      answer = { text: this.options.untooledText ?? '(fake: untooled request)' };
    } else {
      const next = this.script.shift();
      if (next === undefined) {
        this.unscriptedCount += 1;
        answer = { text: UNSCRIPTED_TEXT };
      } else {
        answer = typeof next === 'function' ? await next(request) : next;
      }
    }
    if (answer.delayMs) {
      const delayMs = answer.delayMs;
      await new Promise<void>((resolve) => {
        const delay = { resolve, timer: setTimeout(() => this.endDelay(delay), delayMs) };
        this.delays.add(delay);
      });
    }
    if (res.destroyed) return;
    if ('error' in answer) sendError(res, answer.error);
    else this.answer(res, request, answer);
  }

  private answer(res: http.ServerResponse, request: RecordedRequest, turn: ScriptedTurn): void {
    const content: Array<Record<string, unknown>> = [
      ...(turn.text !== undefined ? [{ type: 'text', text: turn.text }] : []),
      ...(turn.toolUses ?? []).map((t) => ({ type: 'tool_use', id: t.id ?? `toolu_${++this.toolIds}`, name: t.name, input: t.input })),
    ];
    if (content.length === 0) content.push({ type: 'text', text: '' });
    const usage = { ...DEFAULT_USAGE, ...turn.usage };
    const stopReason = turn.stopReason ?? (turn.toolUses?.length ? 'tool_use' : 'end_turn');
    const id = `msg_${++this.messageIds}`;
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: String(request.body.model ?? 'fake-model'),
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    };
    const headers = { 'request-id': `req_${this.messageIds}` };
    if (!request.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
    });
    const send = (data: { type: string } & Record<string, unknown>) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
    // message_start carries the input side of usage; output_tokens grows until message_delta.
    send({ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const part of halves(String(block.text)))
          send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
      } else {
        send({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        for (const part of halves(JSON.stringify(block.input ?? {})))
          send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
      }
      send({ type: 'content_block_stop', index });
    });
    // message_delta usage is cumulative: the turn's final output token count.
    send({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    send({ type: 'message_stop' });
    res.end();
  }
}

/** Splits into two non-empty chunks (one if the string is a single character or empty). */
function halves(text: string): string[] {
  if (text.length < 2) return text ? [text] : [];
  const cut = Math.ceil(text.length / 2);
  return [text.slice(0, cut), text.slice(cut)];
}

function sendError(res: http.ServerResponse, error: ScriptedError['error']): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  Object.assign(headers, error.headers);
  res.writeHead(error.status, headers).end(JSON.stringify({ type: 'error', error: { type: error.type, message: error.message } }));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => holdsLoneSurrogate(k) || holdsLoneSurrogate(v));
  return false;
}
