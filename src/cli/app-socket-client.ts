import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { configDigest, homeFrom } from '../config-digest';
import { type AppSocketReply, type AppSocketRequest, appSocketPath, isServableArgv, NOT_SERVED_EXIT_CODE } from './app-socket-protocol';

/**
 * The fast `aq exec`: asks the app running on the same AQ_HOME to run the command and prints its
 * answer, or ends with NOT_SERVED_EXIT_CODE having printed nothing, and bin/aq runs `aq`
 * in-process. It starts a few milliseconds after Node itself because it loads only Node's own
 * modules: no catalog, no database, no startup snapshot.
 */

/** How long the app has to accept or refuse; after acceptance the command takes as long as it takes. */
const ACCEPT_TIMEOUT_MS = 5_000;

/** The build this CLI belongs to; it sits in dist/src/cli, the stamp in dist. */
function buildStamp(): string | null {
  try {
    return readFileSync(path.join(__dirname, '..', '..', '.build-stamp'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** The checkout this CLI belongs to, found as src/config.ts finds the app's (the folder with package.json). */
function appRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 4; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return process.cwd();
}

/**
 * The environment `aq` in-process would configure itself from: its own, over the `.env` found
 * from the working directory (else in the checkout), as src/config.ts withDotEnv reads it.
 */
function configEnv(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  for (const dir of [cwd, appRoot()]) {
    const file = path.join(dir, '.env');
    if (!existsSync(file)) continue;
    return { ...parseEnv(readFileSync(file, 'utf8')), ...env };
  }
  return env;
}

function parseReply(line: string): AppSocketReply | null {
  try {
    const reply = JSON.parse(line) as unknown;
    return typeof reply === 'object' && reply !== null ? (reply as AppSocketReply) : null;
  } catch {
    return null;
  }
}

const GONE = 'aq failed: the app stopped before answering, so the command may or may not have run (`aq exec get_status` shows the queue).';

/** Resolves to the exit code: the command's own, or NOT_SERVED_EXIT_CODE when the app did not take it. */
export function askApp(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const build = buildStamp();
  const socketPath = appSocketPath(homeFrom(env));
  if (!build || !socketPath || !isServableArgv(argv)) return Promise.resolve(NOT_SERVED_EXIT_CODE);
  const cwd = process.cwd();
  let digest: string;
  try {
    digest = configDigest(configEnv(env, cwd));
  } catch {
    // An unreadable .env: `aq` in-process says what is wrong with it.
    return Promise.resolve(NOT_SERVED_EXIT_CODE);
  }
  const request: AppSocketRequest = { build, argv, configDigest: digest, cwd };
  return new Promise((resolve) => {
    let accepted = false;
    let buffered = '';
    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(code);
    };
    // Refused (a socket left by a killed app), missing, or cut: in-process unless the command began.
    const lost = () => {
      if (settled) return;
      if (accepted) process.stderr.write(`${GONE}\n`);
      finish(accepted ? 1 : NOT_SERVED_EXIT_CODE);
    };
    const socket = net.connect(socketPath);
    socket.setEncoding('utf8');
    socket.setTimeout(ACCEPT_TIMEOUT_MS, () => {
      if (!accepted) finish(NOT_SERVED_EXIT_CODE);
    });
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1 && !settled; end = buffered.indexOf('\n')) {
        const reply = parseReply(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (!reply || !('accepted' in reply || 'served' in reply || typeof reply.code === 'number')) {
          lost();
        } else if ('accepted' in reply) {
          accepted = true;
          socket.setTimeout(0);
        } else if ('served' in reply) {
          finish(NOT_SERVED_EXIT_CODE);
        } else {
          if (reply.stdout) process.stdout.write(reply.stdout);
          if (reply.stderr) process.stderr.write(reply.stderr);
          finish(reply.code);
        }
      }
    });
    socket.on('error', lost);
    socket.on('close', lost);
  });
}

if (require.main === module) {
  askApp(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = NOT_SERVED_EXIT_CODE;
    },
  );
}
