import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model turn of the OpenAI Responses API: the output items it streams, then the usage it reports. */
export interface ResponsesTurn {
  output: Array<Record<string, unknown>>;
  usage?: { input_tokens: number; output_tokens: number };
}

export interface RecordedResponsesRequest {
  url: string;
  body: { tools?: Array<{ type: string; name?: string }>; input?: unknown[] } & Record<string, unknown>;
}

/** A Codex `apply_patch` call (a custom tool whose input is the patch text) that adds one file. */
export function addFileCall(callId: string, file: string, text: string): Record<string, unknown> {
  const lines = text.split('\n').map((line) => `+${line}`);
  const input = ['*** Begin Patch', `*** Add File: ${file}`, ...lines, '*** End Patch', ''].join('\n');
  return { type: 'custom_tool_call', id: `ctc_${callId}`, status: 'completed', call_id: callId, name: 'apply_patch', input };
}

export function assistantMessage(id: string, text: string): Record<string, unknown> {
  return { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

/**
 * A loopback stand-in for the OpenAI Responses API (`POST /v1/responses`, streamed as server-sent
 * events), answering each request with the next scripted turn and recording what it was sent.
 */
export class FakeResponsesApi {
  readonly requests: RecordedResponsesRequest[] = [];
  private server?: http.Server;

  constructor(private readonly turns: ResponsesTurn[]) {}

  get baseUrl(): string {
    if (!this.server) throw new Error('Start the fake Responses API before asking for its URL.');
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.answer(req.url ?? '', Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(url: string, raw: string, res: http.ServerResponse): void {
    if (!url.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    this.requests.push({ url, body: JSON.parse(raw) });
    const turn = this.turns[this.requests.length - 1];
    if (!turn) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"the fake Responses API has no more turns"}}');
      return;
    }
    const id = `resp_${this.requests.length}`;
    const usage = turn.usage ?? { input_tokens: 0, output_tokens: 0 };
    const events: Array<Record<string, unknown>> = [{ type: 'response.created', response: { id } }];
    turn.output.forEach((item, index) => {
      events.push({ type: 'response.output_item.added', output_index: index, item });
      events.push({ type: 'response.output_item.done', output_index: index, item });
    });
    events.push({
      type: 'response.completed',
      response: {
        id,
        usage: {
          ...usage,
          input_tokens_details: null,
          output_tokens_details: null,
          total_tokens: usage.input_tokens + usage.output_tokens,
        },
      },
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }
}
