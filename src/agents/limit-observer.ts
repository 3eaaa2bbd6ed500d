import type { AddressInfo } from 'node:net';
import { resetFromHeaders } from './limit-headers';

/** The Messages API's address when none is configured. */
export const DEFAULT_ANTHROPIC_URL = 'https://api.anthropic.com';

export interface LimitObserver {
  /** The base URL to give the CLI instead of the API's. */
  readonly url: string;
  /** The reset time of the last refused (429) response, if its headers named one. */
  readonly resetsAt: Date | null;
  close(): Promise<void>;
}

/**
 * A loopback pass-through in front of the Messages API for one agent run. The CLI reports a
 * refused request without its response headers, and those headers are where the API says when
 * to try again (`retry-after`, `anthropic-ratelimit-*-reset`): this keeps them. Requests and
 * answers (streams included) pass unchanged.
 */
export async function observeLimits(target: string): Promise<LimitObserver> {
  // Loaded on a run, not with the module: node:http cannot be loaded while the CLI's startup
  // snapshot is built, and aq never runs an agent.
  const http = await import('node:http');
  const base = new URL(target);
  const client = base.protocol === 'https:' ? await import('node:https') : http;
  const prefix = base.pathname.replace(/\/+$/, '');
  let resetsAt: Date | null = null;
  const server = http.createServer((req, res) => {
    const upstream = client.request(
      {
        protocol: base.protocol,
        hostname: base.hostname,
        port: base.port || undefined,
        method: req.method,
        path: `${prefix}${req.url ?? '/'}`,
        headers: { ...req.headers, host: base.host },
      },
      (answer) => {
        if (answer.statusCode === 429) resetsAt = resetFromHeaders(answer.headers) ?? resetsAt;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (res.headersSent) {
        res.destroy(err);
        return;
      }
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `Could not reach ${base.host}: ${err.message}` } }));
    });
    req.on('aborted', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get resetsAt() {
      return resetsAt;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
