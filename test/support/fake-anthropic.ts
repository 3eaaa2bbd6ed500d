import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolUse {
  name: string;
  input: unknown;
  id?: string;
}

export interface ScriptedTurn {
  text?: string;
  toolUses?: ScriptedToolUse[];
  stopReason?: string;
  usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  delayMs?: number;
}

export interface ScriptedError {
  error: { status: number; type: string; message: string; retryAfter?: number };
}

export type Script = ScriptedTurn | ScriptedError | ((request: RecordedRequest) => ScriptedTurn | ScriptedError);

export interface RecordedRequest {
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> & { messages?: Array<{ role: string; content: unknown }>; stream?: boolean; tools?: unknown[] };
}

const DEFAULT_USAGE = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/**
 * A loopback Messages API that plays a script: JSON for plain requests, SSE when the request
 * asks to stream (as the Claude Code CLI does), with error statuses on demand. Routes on the
 * path alone, because the CLI adds `?beta=true`.
 */
export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  private readonly script: Script[] = [];
  unscriptedCount = 0;
  private ids = 0;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<FakeAnthropic> {
    let fake!: FakeAnthropic;
    const server = http.createServer((req, res) => fake.handle(req, res));
    fake = new FakeAnthropic(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  enqueue(...turns: Script[]): void {
    this.script.push(...turns);
  }

  lastRequest(): RecordedRequest {
    const last = this.requests.at(-1);
    if (!last) throw new Error('The fake Messages API has received no request.');
    return last;
  }

  /** The tool_result blocks of a request's last user message. */
  toolResultsIn(request: RecordedRequest): Array<{ tool_use_id: string; content: unknown; is_error?: boolean }> {
    const last = [...(request.body.messages ?? [])].reverse().find((m) => m.role === 'user');
    if (!last || !Array.isArray(last.content)) return [];
    return (last.content as Array<{ type: string }>).filter((b) => b.type === 'tool_result') as never;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', this.url);
      if (req.method === 'HEAD') {
        res.writeHead(200).end();
        return;
      }
      if (url.pathname !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url.pathname } }));
        return;
      }
      const request: RecordedRequest = { path: url.pathname, query: url.search, headers: req.headers, body: raw ? JSON.parse(raw) : {} };
      this.requests.push(request);
      let next = this.script.shift();
      if (typeof next === 'function') next = next(request);
      if (!next) {
        this.unscriptedCount++;
        next = { text: '(fake: no scripted turn)' };
      }
      const turn = next;
      setTimeout(() => this.answer(res, request, turn), 'delayMs' in turn ? (turn.delayMs ?? 0) : 0);
    });
  }

  private answer(res: http.ServerResponse, request: RecordedRequest, turn: ScriptedTurn | ScriptedError): void {
    if ('error' in turn) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (turn.error.retryAfter !== undefined) headers['retry-after'] = String(turn.error.retryAfter);
      res.writeHead(turn.error.status, headers).end(JSON.stringify({ type: 'error', error: { type: turn.error.type, message: turn.error.message } }));
      return;
    }
    const content = [
      ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
      ...(turn.toolUses ?? []).map((t) => ({ type: 'tool_use', id: t.id ?? `toolu_${++this.ids}`, name: t.name, input: t.input })),
    ];
    const usage = { ...DEFAULT_USAGE, ...turn.usage };
    const stopReason = turn.stopReason ?? (turn.toolUses?.length ? 'tool_use' : 'end_turn');
    const message = { id: `msg_${++this.ids}`, type: 'message', role: 'assistant', model: String(request.body.model ?? 'fake-model'), content, stop_reason: stopReason, stop_sequence: null, usage };
    if (!request.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        const text = (block as { text: string }).text;
        const half = Math.ceil(text.length / 2);
        for (const part of [text.slice(0, half), text.slice(half)]) {
          if (part) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
        }
      } else {
        const tool = block as { id: string; name: string; input: unknown };
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } });
        const json = JSON.stringify(tool.input);
        const half = Math.ceil(json.length / 2);
        for (const part of [json.slice(0, half), json.slice(half)]) {
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
        }
      }
      send('content_block_stop', { type: 'content_block_stop', index });
    });
    send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }
}
