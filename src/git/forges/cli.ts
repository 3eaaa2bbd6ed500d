import { execFile } from 'node:child_process';

/** What a forge CLI (gh, glab) said; `missing` when the program could not be started at all. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  missing: boolean;
  timedOut: boolean;
}

/**
 * Runs a forge CLI off the event loop: arguments as an array (never a shell), prompts, pagers,
 * colour and update checks off, a timeout. Never rejects; the result says what happened.
 */
export function runCli(file: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 4 * 1024 * 1024,
        env: {
          ...env,
          GH_PROMPT_DISABLED: '1',
          GH_NO_UPDATE_NOTIFIER: '1',
          GLAB_NO_PROMPT: '1',
          GLAB_CHECK_UPDATE: 'false',
          NO_COLOR: '1',
          NO_PROMPT: '1',
        },
      },
      (error, stdout, stderr) => {
        const errno = (error as NodeJS.ErrnoException | null)?.code;
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
          missing: errno === 'ENOENT' || errno === 'EACCES',
          timedOut: Boolean(error && (error as { killed?: boolean }).killed),
        });
      },
    );
  });
}

/** The first non-empty line of a CLI's output, capped, for an error sentence. */
export function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? 'unknown error';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** Output that means the CLI has no usable login. */
export function saysNotLoggedIn(text: string): boolean {
  return /auth login|not logged in|authentication|unauthorized|401/i.test(text);
}
