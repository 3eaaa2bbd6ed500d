import { systemClock, type Clock } from '../util/clock';
import { folderMissing, launch } from '../util/process-launcher';
import { plantedAlternates, plantedCommonDir } from './git-control-files';
import { GitError, GitExitError, toGitError } from './git-errors';

export interface GitRunResult {
  code: number;
  stdout: string;
  /** Filled only for a non-zero exit. */
  stderr: string;
  /** Set when the output passed the call's `maxOutput` and `stdout` holds its first whole lines. */
  cut?: true;
}

export interface GitCallOptions {
  /** Exit codes that are results, not errors. */
  okCodes?: number[];
  /**
   * Keep at most this many bytes of the output, cut after its last whole line (`cut` says so).
   * Without it, a call whose output passes OUTPUT_LIMIT_BYTES fails instead of filling memory.
   */
  maxOutput?: number;
}

/** The most output any git call may hold in memory when its caller set no smaller limit. */
export const OUTPUT_LIMIT_BYTES = 64 * 1024 * 1024;

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
    // Reads (status, diff) skip refreshing the index, so they never hold index.lock while a
    // commit or merge in the same workspace needs it.
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    LANGUAGE: 'C',
  };
}

/** git's refusal when another process holds one of its lock files (index.lock, a ref's .lock). */
const LOCK_HELD = /Unable to create '[^']*\.lock': File exists/;

/** Waits between tries while a lock is held: about 3 s in all, far longer than any git step holds one. */
const LOCK_RETRY_MS = [50, 100, 200, 400, 800, 1500];

/**
 * Settings for every git call: paths verbatim, no colour, no advice on a detached HEAD, no
 * file-system monitor (a program git would start on every status; the app's calls are too short
 * to gain from one, and a workspace's settings must not choose what the app runs), and no
 * automatic maintenance: git would start `git maintenance run --auto` after every fetch, merge,
 * rebase and commit, four or five processes a landing. A task's commit asks for it again
 * (AUTO_MAINTENANCE), so a workspace is still packed as it grows.
 */
const CALL_CONFIG = [
  '-c',
  'core.quotepath=false',
  '-c',
  'color.ui=false',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'maintenance.auto=false',
];

/** The git command of a call's arguments (`diff` of `-c x=y diff --stat`), for messages. */
function subcommand(args: string[]): string {
  return args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? 'git';
}

/** Put before a git command to have git run its automatic maintenance after it, as it does by default. */
export const AUTO_MAINTENANCE = ['-c', 'maintenance.auto=true'];

/**
 * Runs git, one process per call (through the process launcher, util/process-launcher.ts), with a
 * "no output for N ms" timeout. Any non-zero exit becomes a GitExitError carrying the exit code
 * and both streams, turned into a one-line GitError for callers.
 */
export class GitRunner {
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly timeoutMs: number,
    env?: NodeJS.ProcessEnv,
    private readonly clock: Clock = systemClock,
  ) {
    this.env = gitEnv(env ?? process.env);
  }

  get processEnv(): NodeJS.ProcessEnv {
    return this.env;
  }

  /**
   * Runs `git <args>` in `cwd`. Exit codes listed in `okCodes` are results, not errors (for
   * commands such as `merge-tree` or `diff --quiet` that answer through their exit code).
   */
  async exec(cwd: string, args: string[], options: GitCallOptions = {}): Promise<GitRunResult> {
    const planted = plantedCommonDir(cwd);
    if (planted) {
      throw new GitError(
        `git will not run in ${cwd}: ${planted} would make it read its settings from another folder, and only a linked worktree has one. Look at it and remove it.`,
      );
    }
    const alternates = plantedAlternates(cwd);
    if (alternates) {
      throw new GitError(
        `git will not run in ${cwd}: ${alternates} would make it take objects from other repositories, and the app never makes one. Look at it; if the repository is your own clone made with --reference, run "git repack -a -d" there, then remove it.`,
      );
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.execOnce(cwd, args, options);
      } catch (err) {
        // Another git process in the same repository (the agent's, a reader without
        // GIT_OPTIONAL_LOCKS) holds a lock for a moment: wait for it rather than fail the step.
        // A lock left by a crashed git stays, and the error comes out after the last try.
        if (!(err instanceof GitError) || !LOCK_HELD.test(err.message) || attempt >= LOCK_RETRY_MS.length) throw err;
        await this.clock.sleep(LOCK_RETRY_MS[attempt]);
      }
    }
  }

  private async execOnce(cwd: string, args: string[], options: GitCallOptions): Promise<GitRunResult> {
    const limit = options.maxOutput ?? OUTPUT_LIMIT_BYTES;
    // One byte past the limit tells output that fills it exactly from output that did not fit;
    // git is ended there rather than left to print what nobody reads.
    const run = await launch('git', [...CALL_CONFIG, ...args], {
      cwd,
      env: this.env,
      silenceMs: this.timeoutMs,
      maxOutput: limit + 1,
      stopAtMaxOutput: true,
    });
    if (run.startError) {
      if (await folderMissing(cwd)) throw new GitError(`Directory not found: ${cwd}`);
      throw new GitError(
        run.startError.code === 'ENOENT' ? 'git is not installed (no git on PATH).' : `git could not start: ${run.startError.message}`,
      );
    }
    if (run.timedOut) {
      throw new GitError(`git ${subcommand(args)} timed out (no progress for ${Math.round(this.timeoutMs / 1000)} s).`);
    }
    if (run.overflowed) {
      if (options.maxOutput === undefined) {
        throw new GitError(`git ${subcommand(args)} printed more than ${Math.round(limit / 1024 / 1024)} MB, more than the app reads.`);
      }
      const kept = run.stdout.subarray(0, run.stdout.lastIndexOf(10, limit - 1) + 1);
      return { code: 0, stdout: kept.toString('utf8'), stderr: '', cut: true };
    }
    const stdout = run.stdout.toString('utf8');
    if (run.code === 0) return { code: 0, stdout, stderr: '' };
    const failure = new GitExitError(run.code ?? 128, stdout, run.stderr.toString('utf8'));
    if (run.code !== null && (options.okCodes ?? []).includes(run.code)) {
      return { code: run.code, stdout: failure.stdout, stderr: failure.stderr };
    }
    throw this.describe(failure, cwd);
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

  private describe(failure: GitExitError, cwd: string): GitError {
    if (/not a git repository/i.test(`${failure.stderr}\n${failure.stdout}`)) return new GitError(`Not a git repository: ${cwd}`);
    return toGitError(failure);
  }
}
