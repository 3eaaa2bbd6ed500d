import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { descriptor3Pipe, writeDescriptor3 } from './descriptor3';
import { commandEnvironment } from './safe-env';

export interface ShellRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface ShellOptions {
  cwd: string;
  timeoutMs: number;
  /** Output beyond these many characters is dropped (the run continues). */
  maxStdout: number;
  maxStderr: number;
  /** Defaults to this process's environment without secrets: the output may be shown in Slack. */
  env?: NodeJS.ProcessEnv;
  /** Bytes the command can read on its descriptor 3 (as bubblewrap reads a seccomp filter). */
  descriptor3?: Buffer | null;
}

/**
 * Runs a command line through /bin/sh without blocking the event loop. On timeout the whole
 * process group is killed, so `sleep 100 &` style children do not outlive it.
 */
export function runShell(command: string, options: ShellOptions): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: options.cwd,
      env: options.env ?? commandEnvironment(process.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...descriptor3Pipe(options.descriptor3 ?? null)],
    });
    writeDescriptor3(child, options.descriptor3 ?? null);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // Piped above (the spread descriptors leave TypeScript unsure).
    const outStream = child.stdout as Readable;
    const errStream = child.stderr as Readable;
    outStream.setEncoding('utf8');
    errStream.setEncoding('utf8');
    outStream.on('data', (chunk: string) => {
      if (stdout.length < options.maxStdout) stdout += chunk;
    });
    errStream.on('data', (chunk: string) => {
      if (stderr.length < options.maxStderr) stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode: timedOut ? -1 : (code ?? (signal ? 128 : 1)),
        stdout: stdout.slice(0, options.maxStdout),
        stderr: stderr.slice(0, options.maxStderr),
        timedOut,
      });
    });
  });
}
