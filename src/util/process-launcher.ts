import { type ChildProcess, spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';

export interface LaunchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Bytes written to the program's standard input, which is otherwise closed. */
  input?: string;
  /** Killed when it prints nothing for this long (a hung network call). */
  silenceMs?: number;
  /** Killed when it runs longer than this in all. */
  timeoutMs?: number;
  /** Output beyond this many bytes per stream is dropped; the program runs on. */
  maxOutput?: number;
  /** Ends the program (SIGTERM) once its standard output reaches `maxOutput`, and says so (`overflowed`). */
  stopAtMaxOutput?: boolean;
}

export interface Launched {
  /** The exit code; null when a signal ended the program or it never started. */
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Killed by `silenceMs` or `timeoutMs`. */
  timedOut: boolean;
  /** Ended because its standard output reached `maxOutput` (with `stopAtMaxOutput`). */
  overflowed?: true;
  /** Why the program could not be started (`ENOENT` for a missing program or folder). */
  startError?: { code?: string; message: string };
}

interface LaunchRequest extends LaunchOptions {
  command: string;
  args: string[];
}

/**
 * Starts a program and collects what it printed. Self-contained on purpose (its only free name is
 * its `spawn` argument): the launcher process runs this same function from its source text.
 */
function collect(
  start: typeof spawn,
  request: LaunchRequest,
  done: (result: Launched) => void,
): { kill: (signal: NodeJS.Signals) => void } | null {
  const limit = request.maxOutput ?? Number.POSITIVE_INFINITY;
  let child: ReturnType<typeof spawn>;
  try {
    child = start(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    done({
      code: null,
      signal: null,
      stdout: Buffer.alloc(0),
      stderr: Buffer.alloc(0),
      timedOut: false,
      startError: { code: e.code, message: e.message },
    });
    return null;
  }
  const out: Buffer[] = [];
  const errs: Buffer[] = [];
  const sizes = [0, 0];
  let timedOut = false;
  let overflowed = false;
  let startError: { code?: string; message: string } | undefined;
  let silence: ReturnType<typeof setTimeout> | undefined;
  // A killed program's own children may hold its output open: stop reading, or 'close' waits for them.
  const kill = (signal: NodeJS.Signals) => {
    child.kill(signal);
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  const expire = () => {
    timedOut = true;
    kill('SIGKILL');
  };
  const heard = () => {
    if (request.silenceMs === undefined) return;
    clearTimeout(silence);
    silence = setTimeout(expire, request.silenceMs);
  };
  const overall = request.timeoutMs === undefined ? undefined : setTimeout(expire, request.timeoutMs);
  heard();
  const keep = (into: Buffer[], index: number) => (chunk: Buffer) => {
    heard();
    if (sizes[index] >= limit) return;
    const part = chunk.subarray(0, limit - sizes[index]);
    sizes[index] += part.length;
    into.push(part);
    if (index === 0 && sizes[0] >= limit && request.stopAtMaxOutput && !overflowed) {
      overflowed = true;
      kill('SIGTERM');
    }
  };
  child.stdout?.on('data', keep(out, 0));
  child.stderr?.on('data', keep(errs, 1));
  if (request.input !== undefined && child.stdin) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.input);
  }
  child.on('error', (err: NodeJS.ErrnoException) => {
    startError = { code: err.code, message: err.message };
  });
  child.on('close', (code, signal) => {
    clearTimeout(silence);
    clearTimeout(overall);
    done({
      code: startError ? null : code,
      signal: signal ?? null,
      stdout: Buffer.concat(out),
      stderr: Buffer.concat(errs),
      timedOut,
      ...(overflowed && { overflowed: true }),
      ...(startError && { startError }),
    });
  });
  return { kill };
}

/**
 * The launcher process: a bare Node that starts programs on request over its IPC channel. A
 * process that forks from a small parent costs a fraction of one forked from a large one (the
 * kernel copies the parent's page tables), and the fork blocks the caller's event loop. When
 * its caller goes (let go, or died), it lets what it started finish, within their own timeouts,
 * and then leaves: a git checkout or push cut half-way would leave a workspace the next lander
 * has to repair.
 */
const LAUNCHER_SOURCE = `
const { spawn } = require('node:child_process');
const collect = ${collect.toString()};
const running = new Map();
process.on('message', (message) => {
  if (message.kill) return void running.get(message.id)?.kill(message.kill);
  const started = collect(spawn, message.request, (result) => {
    running.delete(message.id);
    if (process.connected) process.send({ id: message.id, result });
    else if (running.size === 0) process.exit(0);
  });
  if (started) running.set(message.id, started);
});
process.on('disconnect', () => {
  if (running.size === 0) process.exit(0);
});
`;

/** Programs started in this process before the launcher is worth its own start (about 40 ms). */
const DIRECT_STARTS = 8;
/** The launcher is let go after this long without a request; the next one starts another. */
const LAUNCHER_IDLE_MS = 5000;

type Pending = { resolve: (result: Launched) => void };

/**
 * Starts programs for this process: the first few directly, then through a launcher process
 * (LAUNCHER_SOURCE) kept while work comes. A short `aq` command never starts one; the daemon, a
 * worker and a test's runtime, which run git dozens of times per task, do.
 */
class ProcessLauncher {
  private directStarts = 0;
  private launcher: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set when a launcher died: from then on this process starts its programs itself. */
  private launcherFailed = false;

  run(request: LaunchRequest, signal?: AbortSignal): Promise<Launched> {
    if (this.directStarts < DIRECT_STARTS || !this.ensureLauncher()) {
      this.directStarts++;
      return new Promise((resolve) => {
        const started = collect(spawn, request, resolve);
        if (started && signal) signal.addEventListener('abort', () => started.kill('SIGTERM'), { once: true });
      });
    }
    const launcher = this.launcher as ChildProcess;
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    return new Promise<Launched>((resolve) => {
      this.pending.set(id, { resolve });
      launcher.channel?.ref();
      launcher.send({ id, request });
      signal?.addEventListener('abort', () => launcher.connected && launcher.send({ id, kill: 'SIGTERM' }), { once: true });
    });
  }

  private ensureLauncher(): boolean {
    if (this.launcher?.connected) return true;
    if (this.launcherFailed) return false;
    try {
      // Each request carries its program's environment: the launcher itself gets none of ours (no secrets).
      const launcher = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      launcher.unref();
      launcher.channel?.unref();
      launcher.on('message', (message: { id: number; result: Launched }) => this.settle(message));
      launcher.on('error', () => this.lost(launcher));
      launcher.on('exit', () => this.lost(launcher));
      this.launcher = launcher;
      return true;
    } catch {
      return false;
    }
  }

  private settle({ id, result }: { id: number; result: Launched }): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.becameIdle();
    // Buffers arrive as plain byte arrays.
    waiting.resolve({ ...result, stdout: Buffer.from(result.stdout), stderr: Buffer.from(result.stderr) });
  }

  /**
   * Nothing is running: the channel no longer keeps this process alive, and the launcher is let go
   * after a while. Only this side decides that, so no request can be sent to a launcher leaving.
   */
  private becameIdle(): void {
    const launcher = this.launcher;
    launcher?.channel?.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.launcher !== launcher || this.pending.size > 0) return;
      this.launcher = null;
      launcher?.disconnect();
    }, LAUNCHER_IDLE_MS);
    this.idleTimer.unref();
  }

  /**
   * The launcher died (killed, out of memory, or it could not start): what it was running is
   * reported as failed to start (it may or may not have run, so it is not run again), and this
   * process starts its programs itself from now on.
   */
  private lost(launcher: ChildProcess): void {
    if (this.launcher !== launcher) return;
    this.launcher = null;
    this.launcherFailed = true;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.resolve({
        code: null,
        signal: null,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        timedOut: false,
        startError: { code: 'ELAUNCHER', message: 'the process launcher stopped' },
      });
    }
  }
}

const launcher = new ProcessLauncher();

/** Runs `command` with `args` (never through a shell) and collects its output; never rejects. */
export function launch(command: string, args: string[], options: LaunchOptions, signal?: AbortSignal): Promise<Launched> {
  return launcher.run({ command, args, ...options }, signal);
}

/** For a start error: whether the folder is missing (rather than the program). */
export async function folderMissing(cwd: string): Promise<boolean> {
  return stat(cwd).then(
    (s) => !s.isDirectory(),
    () => true,
  );
}
