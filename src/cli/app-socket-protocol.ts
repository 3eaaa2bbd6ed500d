import path from 'node:path';
import { APP_SOCKET_NAME } from '../util/app-home-files';

/**
 * What `aq` and a running app on the same AQ_HOME say to each other over `$AQ_HOME/aq.sock`
 * (src/app-socket.ts listens, src/cli/app-socket-client.ts asks). One JSON line each way: the
 * request, then either a refusal or an acceptance followed by the answer. The client loads this
 * file on every fast `aq`, so it imports only Node's own modules.
 */

/**
 * The longest socket path in bytes that every platform takes: sun_path is 108 bytes on Linux and
 * 104 on macOS, the terminating NUL included. A longer AQ_HOME simply has no fast path.
 */
const MAX_SOCKET_PATH_BYTES = 103;

/** The largest request the app reads; argv is far smaller in practice. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** The exit code the client ends with when the app did not serve: bin/aq then runs `aq` in-process. */
export const NOT_SERVED_EXIT_CODE = 75;

export interface AppSocketRequest {
  /** The CLI's build (dist/.build-stamp): an app built at another time never answers. */
  build: string;
  /** `aq`'s arguments, e.g. ["exec", "get_status"]. */
  argv: string[];
  /**
   * The digest of the CLI's configuration (src/config-digest.ts, over its environment and the
   * `.env` it would load): the app answers only when its own is the same. Never the environment
   * itself, which holds the CLI's secrets.
   */
  configDigest: string;
  /** The CLI's working directory (where its `.env` is looked for). */
  cwd: string;
}

export type AppSocketReply = { served: false; reason: string } | { accepted: true } | { stdout: string; stderr: string; code: number };

/** `$AQ_HOME/aq.sock`, or null where the path is too long to be a socket's or the platform has none. */
export function appSocketPath(home: string): string | null {
  if (process.platform === 'win32') return null;
  const file = path.join(home, APP_SOCKET_NAME);
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH_BYTES ? file : null;
}

/**
 * The arguments the app may answer: `exec NAME [JSON_ARGS]` exactly, as commander would read
 * them. Anything else (`exec -` reading standard input, an option, extra words) runs in-process,
 * which also gives its usual help or usage error.
 */
export function isServableArgv(argv: readonly string[]): boolean {
  if (argv[0] !== 'exec' || argv.length < 2 || argv.length > 3) return false;
  return argv[1] !== '-' && argv.slice(1).every((arg) => !arg.startsWith('-'));
}
