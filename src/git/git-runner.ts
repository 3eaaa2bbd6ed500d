import { simpleGit, type SimpleGit } from 'simple-git';
import { GitError, GitExitError, toGitError } from './git-errors';

export interface GitRunResult {
  code: number;
  stdout: string;
  /** Filled only for a non-zero exit (simple-git keeps it only then). */
  stderr: string;
}

/** Used when a repository has no identity of its own (CI as root has no git config at all). */
export const FALLBACK_IDENTITY = { name: 'Agent Queue', email: 'agent-queue@localhost' };

/**
 * Environment for every git process: never prompt (no terminal, no askpass, ssh in batch mode),
 * never page, never open an editor, and speak the C locale so output can be parsed.
 */
export function gitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_SSH_COMMAND: base.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_MERGE_AUTOEDIT: 'no',
    LC_ALL: 'C',
    LANGUAGE: 'C',
  };
}

/**
 * Runs git through simple-git's async API, one process per call, with a "no output for N ms"
 * timeout. Any non-zero exit becomes a GitExitError carrying the exit code and both streams
 * (simple-git alone resolves a failing command that printed nothing to stderr).
 */
export class GitRunner {
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly timeoutMs: number,
    env?: NodeJS.ProcessEnv,
  ) {
    this.env = gitEnv(env ?? process.env);
  }

  get processEnv(): NodeJS.ProcessEnv {
    return this.env;
  }

  /** A one-call client; `exit` receives the code and streams of a failing process. */
  private client(cwd: string, exit: (failure: GitExitError) => void): SimpleGit {
    try {
      return simpleGit({
        baseDir: cwd,
        timeout: { block: this.timeoutMs },
        config: ['core.quotepath=false', 'color.ui=false', 'advice.detachedHead=false'],
        errors: (error, result) => {
          if (typeof result.exitCode !== 'number' || result.exitCode <= 0) return error;
          const failure = new GitExitError(
            result.exitCode,
            Buffer.concat(result.stdOut).toString('utf8'),
            Buffer.concat(result.stdErr).toString('utf8'),
          );
          exit(failure);
          return error ?? Buffer.from(failure.message);
        },
      }).env(this.env);
    } catch {
      throw new GitError(`Directory not found: ${cwd}`);
    }
  }

  /**
   * Runs `git <args>` in `cwd`. Exit codes listed in `okCodes` are results, not errors (for
   * commands such as `merge-tree` or `diff --quiet` that answer through their exit code).
   */
  async exec(cwd: string, args: string[], options: { okCodes?: number[] } = {}): Promise<GitRunResult> {
    // simple-git re-wraps errors as its own type, so the exit details come back via this closure.
    let failure: GitExitError | undefined;
    const git = this.client(cwd, (f) => (failure = f));
    try {
      return { code: 0, stdout: await git.raw(args), stderr: '' };
    } catch (err) {
      if (failure && (options.okCodes ?? []).includes(failure.exitCode)) {
        return { code: failure.exitCode, stdout: failure.stdout, stderr: failure.stderr };
      }
      throw this.describe(failure ?? err, cwd, args);
    }
  }

  /** Runs git and returns its standard output; any failure is a one-line GitError. */
  async run(cwd: string, args: string[]): Promise<string> {
    return (await this.exec(cwd, args)).stdout;
  }

  /** True when git exits 0; false for exit code 1 (a "no" from `--verify`, `--is-ancestor` …). */
  async test(cwd: string, args: string[]): Promise<boolean> {
    return (await this.exec(cwd, args, { okCodes: [1] })).code === 0;
  }

  /** `-c user.name=… -c user.email=…` for whatever identity the repository lacks. */
  async identityArgs(cwd: string): Promise<string[]> {
    // One process for both keys: this runs before every commit, merge and rebase.
    const found = (await this.exec(cwd, ['config', '--get-regexp', '^user\\.(name|email)$'], { okCodes: [1] })).stdout;
    const value = (key: string) =>
      found
        .split('\n')
        .filter((line) => line.toLowerCase().startsWith(`${key} `))
        .map((line) => line.slice(key.length + 1).trim())
        .at(-1);
    const [name, email] = [value('user.name'), value('user.email')];
    return [
      ...(name ? [] : ['-c', `user.name=${FALLBACK_IDENTITY.name}`]),
      ...(email ? [] : ['-c', `user.email=${FALLBACK_IDENTITY.email}`]),
    ];
  }

  private describe(err: unknown, cwd: string, args: string[]): GitError {
    const text = err instanceof GitExitError ? `${err.stderr}\n${err.stdout}` : err instanceof Error ? err.message : String(err);
    if (/not a git repository/i.test(text)) return new GitError(`Not a git repository: ${cwd}`);
    if (/block timeout reached|timeout/i.test(text) && !(err instanceof GitExitError)) {
      const command = args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? 'git';
      return new GitError(`git ${command} timed out (no progress for ${Math.round(this.timeoutMs / 1000)} s).`);
    }
    return toGitError(err);
  }
}
