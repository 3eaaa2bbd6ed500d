import { launch } from '../../util/process-launcher';
import { shorten } from '../../util/whole-characters';

/** What a forge CLI (gh, glab) said; `missing` when the program could not be started at all. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  missing: boolean;
  timedOut: boolean;
}

/**
 * Runs a forge CLI (util/process-launcher.ts): arguments as an array (never a shell), prompts, pagers,
 * colour and update checks off, a timeout. Never rejects; the result says what happened.
 */
export async function runCli(file: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const run = await launch(file, args, {
    cwd,
    timeoutMs,
    maxOutput: 4 * 1024 * 1024,
    env: {
      ...env,
      GH_PROMPT_DISABLED: '1',
      GH_NO_UPDATE_NOTIFIER: '1',
      GLAB_NO_PROMPT: '1',
      GLAB_CHECK_UPDATE: 'false',
      NO_COLOR: '1',
      NO_PROMPT: '1',
    },
  });
  return {
    code: run.code ?? 1,
    stdout: run.stdout.toString('utf8'),
    stderr: run.startError ? run.startError.message : run.stderr.toString('utf8'),
    missing: run.startError?.code === 'ENOENT' || run.startError?.code === 'EACCES',
    timedOut: run.timedOut,
  };
}

/** The first non-empty line of a CLI's output, capped, for an error sentence. */
export function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? 'unknown error';
  return shorten(line, 300);
}

/** Output that means the CLI has no usable login. */
export function saysNotLoggedIn(text: string): boolean {
  return /auth login|not logged in|authentication|unauthorized|401/i.test(text);
}
