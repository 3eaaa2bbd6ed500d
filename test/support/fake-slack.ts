import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import { slackSignature } from './slack-signing';

export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  authorization?: string;
}

type Answer = Record<string, unknown> | ((args: Record<string, unknown>) => Record<string, unknown>);

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.includes('application/json')) return raw ? JSON.parse(raw) : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    out[key] = /^[[{]/.test(value) ? safeJson(value) : value;
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

/**
 * A loopback stand-in for Slack: the Web API at /api/<method> (recording every call) and a
 * response_url sink at /response/<id>.
 */
export class FakeSlack {
  readonly calls: ApiCall[] = [];
  readonly responses: Array<{ id: string; body: Record<string, unknown> }> = [];
  private readonly answers = new Map<string, Answer>();
  private ts = 1_700_000_000;
  private waiters: Array<() => void> = [];

  private sockets: WebSocketServer | null = null;
  private socket: WebSocket | null = null;
  private envelopes = 0;

  private constructor(private readonly server: http.Server) {}

  /** Serves Socket Mode: apps.connections.open hands out ws://…/link, which says hello. */
  enableSocketMode(): void {
    this.sockets = new WebSocketServer({ server: this.server, path: '/link' });
    this.sockets.on('connection', (ws) => {
      this.socket = ws;
      ws.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' }, debug_info: { host: 'fake' } }));
    });
    this.setResponse('apps.connections.open', { ok: true, url: `${this.url.replace('http', 'ws')}/link?ticket=fake` });
  }

  async waitForSocket(timeoutMs = 5000): Promise<void> {
    await this.waitFor(() => this.socket !== null, 'a Socket Mode connection', timeoutMs);
  }

  /** Sends an envelope over Socket Mode and resolves with the app's ack and how long it took. */
  sendEnvelope(type: string, payload: unknown, timeoutMs = 5000): Promise<{ ack: Record<string, unknown>; elapsedMs: number }> {
    const socket = this.socket;
    if (!socket) throw new Error('No Socket Mode connection yet.');
    const envelopeId = `env-${++this.envelopes}`;
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No ack for ${envelopeId}`)), timeoutMs);
      const onMessage = (data: Buffer) => {
        const message = JSON.parse(data.toString()) as Record<string, unknown>;
        if (message.envelope_id !== envelopeId) return;
        clearTimeout(timer);
        socket.off('message', onMessage);
        resolve({ ack: message, elapsedMs: performance.now() - started });
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: type === 'slash_commands' }));
    });
  }

  static async start(): Promise<FakeSlack> {
    let fake!: FakeSlack;
    const server = http.createServer((req, res) => fake.handle(req, res));
    fake = new FakeSlack(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  responseUrl(id = 'r1'): string {
    return `${this.url}/response/${id}`;
  }

  setResponse(method: string, answer: Answer): void {
    this.answers.set(method, answer);
  }

  callsTo(method: string): ApiCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Resolves when `predicate` holds, or rejects with what was seen after `timeoutMs`. */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for ${what}. Calls: ${this.calls.map((c) => c.method).join(', ') || 'none'}; responses: ${this.responses.length}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async close(): Promise<void> {
    for (const client of this.sockets?.clients ?? []) client.terminate();
    this.sockets?.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Posts a signed request to a Bolt HTTP receiver, the way Slack does. */
  static async postToApp(
    appUrl: string,
    body: string,
    options: { signingSecret: string; contentType?: 'form' | 'json'; badSignature?: boolean; headers?: Record<string, string> },
  ): Promise<{ status: number; body: string; elapsedMs: number }> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = options.badSignature ? 'v0=deadbeef' : slackSignature(options.signingSecret, timestamp, body);
    const started = performance.now();
    const response = await fetch(`${appUrl}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': options.contentType === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
        'x-slack-signature': signature,
        'x-slack-request-timestamp': String(timestamp),
        ...options.headers,
      },
      body,
    });
    const text = await response.text();
    return { status: response.status, body: text, elapsedMs: performance.now() - started };
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', this.url);
      const body = parseBody(raw, req.headers['content-type']);
      let answer: Record<string, unknown>;
      if (url.pathname.startsWith('/response/')) {
        this.responses.push({ id: url.pathname.slice('/response/'.length), body });
        answer = { ok: true };
      } else if (url.pathname.startsWith('/api/')) {
        const method = url.pathname.slice('/api/'.length);
        this.calls.push({ method, args: body, authorization: req.headers.authorization });
        answer = this.answer(method, body);
      } else {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  private answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const scripted = this.answers.get(method);
    if (scripted) return typeof scripted === 'function' ? scripted(args) : scripted;
    switch (method) {
      case 'auth.test':
        return { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'aq' };
      case 'chat.postMessage':
        return { ok: true, channel: args.channel, ts: `${++this.ts}.000100`, message: { text: args.text } };
      case 'conversations.create':
        return { ok: true, channel: { id: `C${++this.ts}`, name: args.name } };
      default:
        return { ok: true };
    }
  }
}
