import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Runtime } from './runtime';
import { receiveWebhook, type WebhookAnswer } from './orchestrator/automation-webhook';
import { orchestratorCommands } from './commands/orchestrator-commands';

/** Bytes read at most from any delivery, before the endpoint's own (smaller) limit is applied. */
const HARD_LIMIT = 1024 * 1024;

export const WEBHOOK_ROUTE = '/automations/:id/webhook';

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, { status, body }: WebhookAnswer): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The inbound-webhook route, served on the app's HTTP receiver (or, in Socket Mode, on AQ_WEBHOOK_PORT). */
export function webhookRoute(runtime: Pick<Runtime, 'db' | 'events' | 'handler'>, now: () => Date = () => new Date()): CustomRoute {
  return {
    path: WEBHOOK_ROUTE,
    method: 'POST',
    handler: (req, res) => {
      void (async () => {
        const body = await readBody(req, HARD_LIMIT);
        if (body === null) return answer(res, { status: 413, body: { error: `The body is larger than ${HARD_LIMIT} bytes.` } });
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
        const id = String((req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '');
        answer(
          res,
          await receiveWebhook(
            {
              db: runtime.db,
              events: runtime.events,
              commands: orchestratorCommands((name, args) => runtime.handler.executeAny(name, args, { source: 'system' })),
              now,
            },
            { automationId: id, headers, body },
          ),
        );
      })().catch((err: unknown) => {
        console.error(`Webhook delivery failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        if (!res.headersSent) answer(res, { status: 500, body: { error: 'The app could not handle this delivery; try again later.' } });
      });
    },
  };
}
