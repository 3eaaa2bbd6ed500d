import { readFileSync } from 'node:fs';
import { chmod, lstat, stat, unlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { AppConfig } from './config';
import type { Runtime } from './runtime';
import { execOne } from './cli/exec';
import { capturingIo } from './cli/io';
import { cliLogPath, fileLog } from './cli/log-file';
import { type AppSocketReply, type AppSocketRequest, appSocketPath, isServableArgv, MAX_REQUEST_BYTES } from './cli/app-socket-protocol';
import { errorDetails, errorText, isForPeople } from './commands/error-text';

/**
 * The app's answer to `aq exec` on the same AQ_HOME (`$AQ_HOME/aq.sock`, the user's own: 0600):
 * the CLI then skips starting its runtime, which is most of a cold `aq`. The app runs the
 * command exactly as `aq` would in its own process (src/cli/exec.ts, a fresh session, the CLI's
 * actor, the daemon reached through the database as from another process, details of failures
 * in aq.log) and sends back its output and exit code; it refuses (and `aq` runs in-process) whenever
 * it could answer differently: another build, another configuration, or a command that may
 * read the caller's working directory from another one.
 */
export interface AppSocket {
  path: string;
  /** How many commands it has run since it opened. */
  served(): number;
  close(): Promise<void>;
}

/** How long a connection may take to send its request. */
const REQUEST_TIMEOUT_MS = 5_000;

function readBuildStamp(config: AppConfig): string | null {
  try {
    return readFileSync(path.join(config.appRoot, 'dist', '.build-stamp'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function isRequest(value: unknown): value is AppSocketRequest {
  const r = value as AppSocketRequest;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.build === 'string' &&
    typeof r.cwd === 'string' &&
    Array.isArray(r.argv) &&
    r.argv.every((a) => typeof a === 'string') &&
    typeof r.configDigest === 'string'
  );
}

/** Whether the socket at `file` has an app behind it (a connection is taken) or was left by a dead one. */
function isLive(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(file);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Why the app will not listen at `file`, or null when it may (removing a stale socket): AQ_HOME
 * must be the user's own and closed to others, and another live app keeps its socket.
 */
async function obstacle(home: string, file: string): Promise<string | null> {
  const folder = await stat(home);
  if (typeof process.getuid === 'function' && folder.uid !== process.getuid()) return `${home} belongs to another user`;
  if ((folder.mode & 0o022) !== 0) return `${home} is writable by other users`;
  const existing = await lstat(file).catch(() => null);
  if (!existing) return null;
  if (!existing.isSocket()) return `${file} exists and is not a socket`;
  if (await isLive(file)) return 'another app is already answering on it';
  await unlink(file);
  return null;
}

/**
 * Opens the socket; resolves to null (after one log line) where there is no fast path: no
 * build stamp, a path too long, or an obstacle above. The app works the same without it.
 */
export async function openAppSocket(runtime: Runtime, log: (message: string) => void): Promise<AppSocket | null> {
  const { config } = runtime;
  const file = appSocketPath(config.home);
  const build = readBuildStamp(config);
  if (!file || !build) return null;
  const why = await obstacle(config.home, file).catch((err: Error) => err.message);
  if (why) {
    log(`aq's fast path is off (${why}): aq runs commands in its own process.`);
    return null;
  }
  let served = 0;
  const connections = new Set<net.Socket>();
  const running = new Set<Promise<unknown>>();

  /** Why this app cannot answer `request` as `aq` would in-process, or null when it can. */
  const refusal = (request: AppSocketRequest): string | null => {
    if (request.build !== build) return 'the app runs another build of aq';
    if (!isServableArgv(request.argv)) return 'only `aq exec NAME [JSON_ARGS]` is answered here';
    if (request.configDigest !== config.envDigest) return "the CLI's configuration differs from the app's";
    // A command given a relative path resolves it against the working directory.
    const command = runtime.handler.command(request.argv[1]);
    if (request.cwd !== process.cwd() && command?.kind !== 'read') return 'the CLI runs in another folder';
    return null;
  };

  const logFile = cliLogPath(config.home);
  const cliLog = fileLog(logFile);
  const run = async (request: AppSocketRequest): Promise<AppSocketReply> => {
    const { io, stdout, stderr } = capturingIo();
    let code: number;
    try {
      code = await execOne(runtime.createCliHandler(cliLog), request.argv[1], request.argv[2], io);
    } catch (err) {
      // As src/cli.ts answers an unexpected failure, with the details in the CLI's log.
      if (!isForPeople(err)) cliLog(`aq failed: ${errorDetails(err)}`);
      io.stderr(`aq failed: ${errorText(err)}${isForPeople(err) ? '' : ` (${logFile})`}`);
      code = 1;
    }
    return { stdout: stdout(), stderr: stderr(), code };
  };

  const answer = async (socket: net.Socket, line: string) => {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      request = null;
    }
    const why = isRequest(request) ? refusal(request) : 'the request could not be read';
    if (why || !isRequest(request)) {
      socket.end(`${JSON.stringify({ served: false, reason: why ?? '' } satisfies AppSocketReply)}\n`);
      return;
    }
    served++;
    socket.setTimeout(0);
    socket.write(`${JSON.stringify({ accepted: true } satisfies AppSocketReply)}\n`);
    const command = run(request);
    running.add(command);
    const reply = await command.finally(() => running.delete(command));
    socket.end(`${JSON.stringify(reply)}\n`);
  };

  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => undefined);
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      const end = chunk.indexOf(0x0a);
      size += end === -1 ? chunk.length : end;
      if (size > MAX_REQUEST_BYTES) {
        socket.off('data', onData);
        socket.end(`${JSON.stringify({ served: false, reason: 'the request is too large' } satisfies AppSocketReply)}\n`);
        return;
      }
      chunks.push(end === -1 ? chunk : chunk.subarray(0, end));
      if (end === -1) return;
      // One request per connection: anything after its line is ignored.
      socket.off('data', onData);
      answer(socket, Buffer.concat(chunks).toString('utf8')).catch(() => socket.destroy());
    };
    socket.on('data', onData);
  });
  server.on('error', (err) => log(`aq's fast path stopped: ${err.message}`));

  // Created closed to others (umask 0177) rather than opened up and closed after: no moment
  // when someone else could connect. Binding a Unix socket happens within listen() itself.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => {
        server.off('error', reject);
        resolve();
      });
      process.umask(umask);
    });
  } catch (err) {
    process.umask(umask);
    log(`aq's fast path is off (${(err as Error).message}): aq runs commands in its own process.`);
    return null;
  }
  await chmod(file, 0o600);

  return {
    path: file,
    served: () => served,
    /** Stops taking requests and lets the commands under way answer, before the runtime closes. */
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...running]);
      for (const socket of connections) socket.destroy();
      await closed;
      await unlink(file).catch(() => undefined);
    },
  };
}
