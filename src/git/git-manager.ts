import { mkdir, realpath, stat } from 'node:fs/promises';
import { assertValidBranchName, assertValidRefName, assertValidRemoteName, branchNameForTask } from './branch-names';
import { changedFiles, diffAgainstDefault, diffStatsAgainstDefault, workingDiff, type ReadDiff } from './diffs';
import type { DiffSummary } from './diff-summary';
import { cloneRepository, forgetOriginCredentials, keepOriginCredentialsApart } from './clone';
import { GitError, toGitError } from './git-errors';
import type { Clock } from '../util/clock';
import { AUTO_MAINTENANCE, GitRunner, type GitCallOptions, type GitRunResult } from './git-runner';
import { Forges } from './forges/choose';
import type { Forge } from './forges/forge';
import { findBranchConflicts, type BranchConflict } from './merge-check';
import { mergeBranch, type MergeOutcome } from './merge';
import { createPullRequest, type PullRequestInput } from './pull-requests';
import { refSha } from './repo-state';
import { isConflict, parsePorcelainZ, type PorcelainEntry } from './status';
import { syncWorkspaceSteps, type SyncOutcome } from './sync';
import { mergeTaskBranch, prepareTaskBranch, type MergeTaskOutcome, type PrepareTaskOutcome } from './task-branches';

export type { BranchConflict, MergeOutcome, MergeTaskOutcome, PorcelainEntry, PrepareTaskOutcome, PullRequestInput, SyncOutcome };

export interface GitManagerOptions {
  /** Longest a git command may go without output before it is killed (default 120 s). */
  timeoutMs?: number;
  /** Environment for git and gh (default process.env); prompts, pager and locale are always overridden. */
  env?: NodeJS.ProcessEnv;
  /** Path of the GitHub CLI used for pull requests (default `gh` on PATH). */
  ghPath?: string;
  /** Path of the GitLab CLI used for merge requests (default `glab` on PATH). */
  glabPath?: string;
  /** The time git's lock retries wait on (default: the system clock); tests pass one they drive. */
  clock?: Clock;
  /**
   * Where credentials taken out of clone URLs are kept (the app's: `$AQ_HOME/git-credentials`);
   * without it a clone keeps them in its URL (remote-credentials.ts).
   */
  credentialsDir?: string;
}

export interface CommitSummary {
  sha: string;
  shortSha: string;
  author: string;
  /** ISO 8601 author date. */
  date: string;
  subject: string;
}

/**
 * The git layer: plain data in and out, no database, no Slack. Every command (git, gh, glab) runs
 * as its own process through the process launcher (util/process-launcher.ts) with a timeout and no
 * prompts, so nothing here blocks the event loop or waits for a person; failures are a GitError with one short sentence.
 * Branch and ref names from users are validated before they reach git.
 */
export class GitManager {
  readonly timeoutMs: number;
  readonly ghPath: string;
  /** GitHub (gh) and GitLab (glab), chosen by remote or PR/MR URL; AQ_MERGE_METHOD is read from `env`. */
  readonly forges: Forges;
  private readonly runner: GitRunner;
  private readonly credentialsDir: string | undefined;

  constructor(options: GitManagerOptions = {}) {
    this.credentialsDir = options.credentialsDir;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.ghPath = options.ghPath ?? 'gh';
    this.runner = new GitRunner(this.timeoutMs, options.env, options.clock);
    this.forges = new Forges({
      ghPath: this.ghPath,
      glabPath: options.glabPath ?? 'glab',
      env: this.runner.processEnv,
      timeoutMs: Math.min(this.timeoutMs, 60_000),
    });
  }

  /** The environment git and gh run with. */
  get env(): NodeJS.ProcessEnv {
    return this.runner.processEnv;
  }

  /** Runs `git <args>` and returns stdout. Internal building block: args must not carry unchecked user input. */
  run(cwd: string, args: string[]): Promise<string> {
    return this.runner.run(cwd, args);
  }

  /** Like run, but the exit codes in `okCodes` come back as results instead of errors. */
  exec(cwd: string, args: string[], options: GitCallOptions = {}): Promise<GitRunResult> {
    return this.runner.exec(cwd, args, options);
  }

  /** True on exit 0, false on exit 1. */
  test(cwd: string, args: string[]): Promise<boolean> {
    return this.runner.test(cwd, args);
  }

  identityArgs(cwd: string): Promise<string[]> {
    return this.runner.identityArgs(cwd);
  }

  // --- repositories -------------------------------------------------------------------------

  /** True when `path` is the top of a git working tree (not a bare repo, not a folder inside one). */
  async isRepo(path: string): Promise<boolean> {
    try {
      const top = (await this.runner.run(path, ['rev-parse', '--show-toplevel'])).trim();
      return top !== '' && (await realpath(top)) === (await realpath(path));
    } catch {
      return false;
    }
  }

  /** Throws "Directory not found: …" or "Not a git repository: …" as the case may be. */
  async assertRepo(path: string): Promise<void> {
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory()) throw new GitError(`Directory not found: ${path}`);
    if (!(await this.isRepo(path))) throw new GitError(`Not a git repository: ${path}`);
  }

  async clone(url: string, dest: string, options: { branch?: string } = {}): Promise<void> {
    await cloneRepository(this, url, dest, { ...options, credentialsDir: this.credentialsDir });
  }

  /** Moves a token out of origin's URL in an existing clone (clone.ts). */
  keepOriginCredentialsApart(path: string, url: string): Promise<void> {
    return keepOriginCredentialsApart(this, path, url, this.credentialsDir);
  }

  /** Deletes the credential file of the clone at `path`, if any (clone.ts). */
  forgetOriginCredentials(path: string): Promise<void> {
    return forgetOriginCredentials(this, path, this.credentialsDir);
  }

  /** A new repository (or an existing one without commits) with one empty commit, so branches work. */
  async init(path: string, options: { defaultBranch?: string } | string = {}): Promise<void> {
    const defaultBranch = (typeof options === 'string' ? options : options.defaultBranch) ?? 'main';
    assertValidBranchName(defaultBranch);
    await mkdir(path, { recursive: true });
    await this.run(path, ['init', '--initial-branch', defaultBranch]);
    if (!(await refSha(this, path, 'HEAD'))) {
      await this.run(path, [...(await this.identityArgs(path)), 'commit', '--allow-empty', '--no-verify', '-m', 'Initial commit']);
    }
  }

  async getRemoteUrl(path: string, remote = 'origin'): Promise<string | null> {
    assertValidRemoteName(remote);
    const out = await this.exec(path, ['remote', 'get-url', remote], { okCodes: [1, 2, 128] });
    return out.code === 0 ? out.stdout.trim() || null : null;
  }

  /**
   * The forge origin lives on, or null for plain git (no origin, a path, an unknown host). Read
   * from the configured URL, before any `insteadOf` rewriting, since that names the forge.
   */
  async forgeFor(path: string): Promise<Forge | null> {
    const out = await this.exec(path, ['config', '--get', 'remote.origin.url'], { okCodes: [1] });
    return this.forges.forRemote(out.stdout.trim() || null);
  }

  /** origin's HEAD, else `main` or `master` (local or on origin), else the current branch, else `main`. */
  async detectDefaultBranch(path: string): Promise<string> {
    const head = await this.exec(path, ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'], { okCodes: [1, 128] });
    if (head.code === 0 && head.stdout.trim()) return head.stdout.trim().replace(/^refs\/remotes\/origin\//, '');
    for (const candidate of ['main', 'master']) {
      if ((await refSha(this, path, `refs/heads/${candidate}`)) || (await refSha(this, path, `refs/remotes/origin/${candidate}`)))
        return candidate;
    }
    return (await this.currentBranch(path)) ?? 'main';
  }

  /** The checked-out branch, or null on a detached HEAD. */
  async currentBranch(path: string): Promise<string | null> {
    const out = await this.exec(path, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okCodes: [1] });
    return out.code === 0 ? out.stdout.trim() || null : null;
  }

  async headSha(path: string): Promise<string> {
    return (await this.run(path, ['rev-parse', 'HEAD'])).trim();
  }

  async listBranches(path: string): Promise<{ current: string | null; branches: string[] }> {
    const out = await this.run(path, ['for-each-ref', '--format=%(refname:short)', 'refs/heads']);
    return { current: await this.currentBranch(path), branches: out.split('\n').filter(Boolean) };
  }

  async branchExists(path: string, name: string): Promise<boolean> {
    assertValidBranchName(name);
    return (await refSha(this, path, `refs/heads/${name}`)) !== null;
  }

  // --- status -------------------------------------------------------------------------------

  async porcelainStatus(path: string): Promise<PorcelainEntry[]> {
    return parsePorcelainZ(await this.run(path, ['status', '--porcelain=v1', '-z', '--untracked-files=all']));
  }

  /** `git status --short` text, or '' when the tree is clean. */
  async statusText(path: string): Promise<string> {
    return (await this.run(path, ['status', '--short', '--untracked-files=all'])).trimEnd();
  }

  async hasUncommittedChanges(path: string): Promise<boolean> {
    return (await this.porcelainStatus(path)).length > 0;
  }

  /** Files left in conflict (porcelain UU, AA, DD, AU, UA, DU, UD). */
  async conflictedFiles(path: string): Promise<string[]> {
    return (await this.porcelainStatus(path)).filter(isConflict).map((e) => e.path);
  }

  async hasConflicts(path: string): Promise<boolean> {
    return (await this.conflictedFiles(path)).length > 0;
  }

  /** For find_merge_conflict_workspaces: unresolved conflicts in the working tree. */
  async workingTreeConflict(path: string): Promise<{ hasConflict: boolean; files: string[] }> {
    const files = await this.conflictedFiles(path);
    return { hasConflict: files.length > 0, files };
  }

  /** `git log --oneline` lines, newest first; [] for a repository without commits. */
  async log(path: string, count: number, ref?: string): Promise<string[]> {
    if (ref) assertValidRefName(ref);
    if (!(await refSha(this, path, ref ?? 'HEAD'))) return [];
    const out = await this.run(path, ['log', '--oneline', '--no-decorate', `-n${clampCount(count)}`, ref ?? 'HEAD', '--']);
    return out.split('\n').filter(Boolean);
  }

  async recentCommits(path: string, count: number): Promise<CommitSummary[]> {
    if (!(await refSha(this, path, 'HEAD'))) return [];
    const out = await this.run(path, ['log', `-n${clampCount(count)}`, '--format=%H%x1f%h%x1f%an%x1f%aI%x1f%s%x1e', 'HEAD', '--']);
    return out
      .split('\x1e')
      .map((r) => r.trim())
      .filter(Boolean)
      .map((record) => {
        const [sha, shortSha, author, date, subject] = record.split('\x1f');
        return { sha, shortSha, author, date, subject };
      });
  }

  // --- branches and commits -----------------------------------------------------------------

  async createBranch(path: string, name: string, options: { checkout?: boolean; startPoint?: string } = {}): Promise<void> {
    assertValidBranchName(name);
    if (options.startPoint) assertValidRefName(options.startPoint);
    if (await this.branchExists(path, name)) throw new GitError(`Branch '${name}' already exists.`);
    if (options.startPoint && !(await refSha(this, path, options.startPoint)))
      throw new GitError(`Start point '${options.startPoint}' not found.`);
    const start = options.startPoint ? [options.startPoint] : [];
    await this.run(path, options.checkout === false ? ['branch', name, ...start] : ['checkout', '-b', name, ...start]);
  }

  /** Switches branch (a branch only on origin is checked out as a new tracking branch). */
  async checkout(path: string, name: string): Promise<void> {
    assertValidBranchName(name);
    if (!(await this.branchExists(path, name)) && !(await refSha(this, path, `refs/remotes/origin/${name}`))) {
      throw new GitError(`Branch '${name}' not found.`);
    }
    await this.run(path, ['checkout', name, '--']);
  }

  async deleteBranch(path: string, name: string, options: { force?: boolean } = {}): Promise<void> {
    assertValidBranchName(name);
    if (!(await this.branchExists(path, name))) throw new GitError(`Branch '${name}' not found.`);
    await this.run(path, ['branch', options.force ? '-D' : '-d', name]);
  }

  /** Stages everything and commits; nothing to commit is a result, not an error. */
  async commitAll(path: string, message: string): Promise<{ committed: boolean; sha?: string }> {
    if (!message.trim()) throw new GitError('A commit message is required.');
    await this.run(path, ['add', '-A']);
    if (await this.test(path, ['diff', '--cached', '--quiet'])) return { committed: false };
    await this.run(path, [...(await this.identityArgs(path)), ...AUTO_MAINTENANCE, 'commit', '-m', message]);
    return { committed: true, sha: await this.headSha(path) };
  }

  /**
   * Pushes `branch` to the same name on the remote. `forceWithLease: true` leases against the
   * remote-tracking ref; `{ expected }` against a given sha ('' = the branch must not exist yet).
   * A forced push of the default branch is refused outright.
   */
  async push(
    path: string,
    branch: string,
    options: { forceWithLease?: boolean | { expected: string }; setUpstream?: boolean; remote?: string } = {},
  ): Promise<void> {
    assertValidBranchName(branch);
    const remote = options.remote ?? 'origin';
    assertValidRemoteName(remote);
    const lease = options.forceWithLease;
    if (lease && branch === (await this.detectDefaultBranch(path))) {
      throw new GitError(`Refusing to force-push the default branch '${branch}'.`);
    }
    if (lease && typeof lease === 'object' && lease.expected && !/^[0-9a-f]{40}$/.test(lease.expected)) {
      throw new GitError('The expected sha for a lease must be 40 hex digits.');
    }
    const leaseArgs = !lease
      ? []
      : lease === true
        ? [`--force-with-lease=refs/heads/${branch}`]
        : [`--force-with-lease=refs/heads/${branch}:${lease.expected}`];
    const args = [
      'push',
      ...(options.setUpstream !== false ? ['--set-upstream'] : []),
      ...leaseArgs,
      remote,
      `refs/heads/${branch}:refs/heads/${branch}`,
    ];
    try {
      await this.run(path, args);
    } catch (err) {
      throw toGitError(err, `Could not push '${branch}'`);
    }
  }

  async fetch(path: string, options: { prune?: boolean; remote?: string } = {}): Promise<void> {
    const remote = options.remote ?? 'origin';
    assertValidRemoteName(remote);
    try {
      await this.run(path, ['fetch', ...(options.prune ? ['--prune'] : []), remote]);
    } catch (err) {
      throw toGitError(err, `Could not fetch from ${remote}`);
    }
  }

  /** Merges `branch` into `into`; a conflict is aborted (tree, index and HEAD as before) and reported. */
  merge(path: string, branch: string, into: string): Promise<MergeOutcome> {
    return mergeBranch(this, path, branch, into);
  }

  // --- diffs --------------------------------------------------------------------------------

  /**
   * Without a base: unstaged working-tree changes (`git diff`). With a base: everything this
   * checkout changed since it left `base` — committed or not — as `git diff $(merge-base base HEAD)`.
   */
  diff(path: string, options: { base?: string } | string = {}): Promise<ReadDiff> {
    return workingDiff(this, path, typeof options === 'string' ? options : options.base);
  }

  /** get_task_diff: what `branch` changed since it left the default branch (`default...branch`). */
  diffAgainstDefault(path: string, branch: string, defaultBranch: string): Promise<ReadDiff> {
    return diffAgainstDefault(this, path, branch, defaultBranch);
  }

  /** The files of diffAgainstDefault with their added and removed lines, counted by git. */
  diffStatsAgainstDefault(path: string, branch: string, defaultBranch: string): Promise<DiffSummary> {
    return diffStatsAgainstDefault(this, path, branch, defaultBranch);
  }

  /** Files that differ from the merge base with `base`, uncommitted and untracked ones included. */
  changedFiles(path: string, base: string): Promise<string[]> {
    return changedFiles(this, path, base);
  }

  // --- workspace maintenance and the orchestrator -------------------------------------------

  /** find_merge_conflict_workspaces: fetch --prune, then simulate merging each origin branch into the default. */
  async branchConflicts(path: string, options: { defaultBranch: string }): Promise<BranchConflict[]> {
    assertValidBranchName(options.defaultBranch);
    await this.fetch(path, { prune: true });
    return findBranchConflicts(this, path, options.defaultBranch);
  }

  /** sync_workspaces steps 3–7 for one workspace. */
  syncWorkspace(path: string, options: { defaultBranch: string }): Promise<SyncOutcome> {
    return syncWorkspaceSteps(this, path, options.defaultBranch);
  }

  prepareTaskBranch(path: string, options: { defaultBranch: string; branch: string }): Promise<PrepareTaskOutcome> {
    return prepareTaskBranch(this, path, options);
  }

  mergeTaskBranch(path: string, options: { branch: string; defaultBranch: string; push: boolean }): Promise<MergeTaskOutcome> {
    return mergeTaskBranch(this, path, options);
  }

  branchNameForTask(taskId: string, title: string): string {
    return branchNameForTask(taskId, title);
  }

  /** Opens a pull request with the GitHub CLI; returns its URL. */
  createPullRequest(path: string, pr: PullRequestInput): Promise<string> {
    return createPullRequest(this.ghPath, path, pr, this.timeoutMs, this.env);
  }
}

function clampCount(count: number): number {
  return Number.isFinite(count) ? Math.min(Math.max(Math.trunc(count), 1), 1000) : 10;
}
