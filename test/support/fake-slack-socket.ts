import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, WebSocket, type RawData } from 'ws';

export interface SendEnvelopeOptions {
  /** Slack sets this for slash commands (and view submissions): the ack may carry a reply. Default: type === 'slash_commands'. */
  acceptsResponsePayload?: boolean;
  envelopeId?: string;
  timeoutMs?: number;
}

export interface EnvelopeAck {
  /** What the app sent back: `{ envelope_id, payload? }`. */
  ack: { envelope_id: string; payload?: Record<string, unknown> } & Record<string, unknown>;
  envelopeId: string;
  elapsedMs: number;
}

/**
 * The Socket Mode half of the fake Slack: a `ws` server on the fake's own port at /link. It
 * says `hello` on connect (the client's start() waits for it), pings every `pingIntervalMs`
 * (the client reconnects after 30 s without a server ping), and relays envelopes and acks.
 */
export class FakeSocketMode {
  private readonly wss: WebSocketServer;
  private readonly timers = new Set<NodeJS.Timeout>();
  private envelopes = 0;
  /** Every connection ever made, newest last. */
  readonly connections: WebSocket[] = [];
  /** Every message the app sent over the socket (acks included), parsed. */
  readonly received: Array<Record<string, unknown>> = [];
  /** Pongs the app answered our pings with, over every connection. */
  pongs = 0;
  private readonly pongWaiters = new Set<() => void>();

  constructor(
    server: http.Server,
    private readonly pingIntervalMs = 5_000,
  ) {
    this.wss = new WebSocketServer({ server, path: '/link' });
    this.wss.on('connection', (ws) => this.onConnection(ws));
  }

  /** The newest open connection, if any. */
  get socket(): WebSocket | undefined {
    return [...this.connections].reverse().find((ws) => ws.readyState === WebSocket.OPEN);
  }

  /** Resolves once the app has answered `count` pings in all. */
  waitForPongs(count: number, timeoutMs = 10_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.pongs < count) return;
        this.pongWaiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.pongWaiters.delete(check);
        reject(new Error(`waitForPongs: ${this.pongs} of ${count} pongs after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pongWaiters.add(check);
      check();
    });
  }

  isConnected(): boolean {
    return this.socket !== undefined;
  }

  sendEnvelope(type: string, payload: unknown, options: SendEnvelopeOptions = {}): Promise<EnvelopeAck> {
    const socket = this.socket;
    if (!socket)
      return Promise.reject(
        new Error('sendEnvelope: no Socket Mode connection (did the app start in Socket Mode? await waitForSocketConnection() first).'),
      );
    const envelopeId = options.envelopeId ?? `env-${++this.envelopes}`;
    const timeoutMs = options.timeoutMs ?? 5_000;
    const started = performance.now();
    return new Promise<EnvelopeAck>((resolve, reject) => {
      const onMessage = (data: RawData) => {
        const message = parse(data);
        if (message?.envelope_id !== envelopeId) return;
        finish();
        resolve({ ack: message as EnvelopeAck['ack'], envelopeId, elapsedMs: performance.now() - started });
      };
      const onClose = () => {
        finish();
        reject(new Error(`The Socket Mode connection closed before envelope ${envelopeId} (${type}) was acked.`));
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`No ack for envelope ${envelopeId} (${type}) within ${timeoutMs} ms.`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        socket.off('message', onMessage);
        socket.off('close', onClose);
      };
      socket.on('message', onMessage);
      socket.on('close', onClose);
      const envelope: Record<string, unknown> = {
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: options.acceptsResponsePayload ?? type === 'slash_commands',
      };
      if (type === 'events_api') Object.assign(envelope, { retry_attempt: 0, retry_reason: '' });
      socket.send(JSON.stringify(envelope));
    });
  }

  /** Asks the client to reconnect, as Slack does before rotating a connection. */
  sendDisconnect(reason: 'warning' | 'refresh_requested' | 'link_disabled' = 'refresh_requested'): void {
    this.socket?.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }));
  }

  /**
   * Closes every connection with a proper close handshake, then the server. Bolt's app.stop()
   * resolves before its close frame has arrived here; cutting the TCP connection at that point
   * makes the client log "WebSocket error" and leak a 30 s handshake timer (Jest would hang), so
   * each connection gets up to `graceMs` to finish closing before it is terminated.
   */
  async close(graceMs = 1_000): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    await Promise.all(
      [...this.wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === WebSocket.CLOSED) return resolve();
            const timer = setTimeout(() => {
              ws.terminate();
              resolve();
            }, graceMs);
            ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            if (ws.readyState === WebSocket.OPEN) ws.close(1001, 'fake Slack is shutting down');
          }),
      ),
    );
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket): void {
    this.connections.push(ws);
    ws.on('message', (data) => {
      const message = parse(data);
      if (message) this.received.push(message);
    });
    ws.on('error', () => undefined);
    ws.on('pong', () => {
      this.pongs++;
      for (const wake of this.pongWaiters) wake();
    });
    const ping = setInterval(() => {
      if (ws.readyState === WebSocket.OPEN) ws.ping('fake-slack');
    }, this.pingIntervalMs);
    this.timers.add(ping);
    ws.on('close', () => {
      clearInterval(ping);
      this.timers.delete(ping);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.connections.filter((c) => c.readyState === WebSocket.OPEN).length,
        debug_info: { host: 'fake-slack', build_number: 1, approximate_connection_time: 3600 },
        connection_info: { app_id: 'A1' },
      }),
    );
  }
}

function parse(data: RawData): Record<string, unknown> | undefined {
  try {
    return JSON.parse(data.toString()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
