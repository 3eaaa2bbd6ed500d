import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** http://127.0.0.1:<port>: a repository `origin.git` under the root is `${url}/origin.git`. */
  url: string;
  /** The Authorization headers of every request, in order (absent ones as ''). */
  authorizations: string[];
  close(): Promise<void>;
}

/**
 * Git's smart HTTP protocol on 127.0.0.1 through the real `git http-backend` (CGI), serving the
 * bare repositories under `root`, that answers only requests with HTTP Basic credentials
 * `username:password` (401 with a Basic challenge otherwise, as a forge does).
 */
export async function startGitHttpServer(root: string, username: string, password: string): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const authorizations: string[] = [];
  const server = http.createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    authorizations.push(authorization);
    if (authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('Authentication required\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: username,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    cgi.on('close', () => {
      const output = Buffer.concat(chunks);
      const end = output.indexOf('\r\n\r\n');
      const headerText = output.subarray(0, end).toString('latin1');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of headerText.split('\r\n')) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers).end(output.subarray(end + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // git keeps its connection open between requests: close() alone would wait for it.
        server.closeAllConnections();
      }),
  };
}
