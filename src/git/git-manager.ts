import { stat } from 'node:fs/promises';
import { simpleGit, type SimpleGit } from 'simple-git';
import { assertValidBranchName } from './branch-names';
import { GitError, toGitError } from './git-errors';

export interface GitManagerOptions {
  /** Longest a single git command may take. */
  timeoutMs?: number;
  /** Path of the GitHub CLI used for pull requests. */
  ghPath?: string;
}

export interface PorcelainEntry {
  code: string;
  path: string;
}

export type MergeOutcome = { status: 'merged' } | { status: 'conflict'; files: string[] };

const FALLBACK_IDENTITY = ['-c', 'user.name=Agent Queue', '-c', 'user.email=agent-queue@localhost'];
const CONFLICT_CODES = new Set(['UU', 'AA', 'DD', 'AU', 'UA', 'DU', 'UD']);

/**
 * Git through simple-git's async API: nothing here blocks the event loop, every command has a
 * timeout, never prompts, and fails with a one-line GitError.
 */
export class GitManager {
  readonly timeoutMs: number;
  readonly ghPath: string;

  constructor(options: GitManagerOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.ghPath = options.ghPath ?? 'gh';
  }

  protected git(cwd: string): SimpleGit {
    return simpleGit({ baseDir: cwd, timeout: { block: this.timeoutMs }, maxConcurrentProcesses: 4 }).env({
      ...process.env,
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      LC_ALL: 'C',
    });
  }

  /** Runs git and returns its standard output; failures become a GitError. */
  async run(cwd: string, args: string[]): Promise<string> {
    try {
      return await this.git(cwd).raw(args);
    } catch (err) {
      throw toGitError(err);
    }
  }

  // --- repositories -------------------------------------------------------------------------

  async isRepo(path: string): Promise<boolean> {
    try {
      return (await this.git(path).raw(['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
    } catch {
      return false;
    }
  }

  /** Throws "Directory not found" or "Not a git repository" as the case may be. */
  async assertRepo(path: string): Promise<void> {
    const info = await stat(path).catch(() => null);
    if (!info || !info.isDirectory()) throw new GitError(`Directory not found: ${path}`);
    if (!(await this.isRepo(path))) throw new GitError(`Not a git repository: ${path}`);
  }

  async clone(url: string, dest: string, options: { branch?: string } = {}): Promise<void> {
    if (url.startsWith('-')) throw new GitError(`Invalid repository URL ${JSON.stringify(url)}.`);
    if (options.branch) assertValidBranchName(options.branch);
    const args = ['clone', ...(options.branch ? ['--branch', options.branch] : []), '--', url, dest];
    try {
      await simpleGit({ timeout: { block: this.timeoutMs } })
        .env({ ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' })
        .raw(args);
    } catch (err) {
      throw toGitError(err, `Could not clone ${url}`);
    }
  }

  /** A new repository with one empty commit, so branches can be made at once. */
  async init(path: string, defaultBranch: string): Promise<void> {
    assertValidBranchName(defaultBranch);
    await this.run(path, ['init', '-b', defaultBranch]);
    await this.run(path, [...(await this.identityArgs(path)), 'commit', '--allow-empty', '-m', 'Initial commit']);
  }

  async getRemoteUrl(path: string, remote = 'origin'): Promise<string | null> {
    try {
      return (await this.git(path).raw(['remote', 'get-url', remote])).trim() || null;
    } catch {
      return null;
    }
  }

  /** origin's HEAD, else main or master if present, else the current branch, else `main`. */
  async detectDefaultBranch(path: string): Promise<string> {
    try {
      const ref = (await this.git(path).raw(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'])).trim();
      if (ref) return ref.replace(/^refs\/remotes\/origin\//, '');
    } catch {
      // no origin/HEAD: fall through
    }
    const { branches } = await this.listBranches(path);
    for (const candidate of ['main', 'master']) if (branches.includes(candidate)) return candidate;
    return (await this.currentBranch(path)) ?? 'main';
  }

  /** The checked-out branch, or null on a detached HEAD. */
  async currentBranch(path: string): Promise<string | null> {
    const name = (await this.run(path, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim();
    return name === 'HEAD' ? null : name;
  }

  async headSha(path: string): Promise<string> {
    return (await this.run(path, ['rev-parse', 'HEAD'])).trim();
  }

  async listBranches(path: string): Promise<{ current: string | null; branches: string[] }> {
    const out = await this.run(path, ['for-each-ref', '--format=%(refname:short)', 'refs/heads']);
    return { current: await this.currentBranch(path).catch(() => null), branches: out.split('\n').filter(Boolean) };
  }

  async branchExists(path: string, name: string): Promise<boolean> {
    assertValidBranchName(name);
    // simple-git resolves a non-zero exit without stderr, so judge by the printed sha.
    const sha = await this.git(path)
      .raw(['rev-parse', '--verify', '--quiet', `refs/heads/${name}`])
      .catch(() => '');
    return sha.trim() !== '';
  }

  // --- status -------------------------------------------------------------------------------

  async porcelainStatus(path: string): Promise<PorcelainEntry[]> {
    const out = await this.run(path, ['status', '--porcelain=v1', '--untracked-files=all']);
    return out
      .split('\n')
      .filter((l) => l.length > 3)
      .map((l) => ({ code: l.slice(0, 2), path: l.slice(3) }));
  }

  /** Short status text, or '' when clean. */
  async statusText(path: string): Promise<string> {
    return (await this.run(path, ['status', '--short', '--branch'])).split('\n').slice(1).join('\n').trim();
  }

  async hasUncommittedChanges(path: string): Promise<boolean> {
    return (await this.porcelainStatus(path)).length > 0;
  }

  /** Files left in conflict (porcelain UU, AA, DD …). */
  async conflictedFiles(path: string): Promise<string[]> {
    return (await this.porcelainStatus(path)).filter((e) => CONFLICT_CODES.has(e.code)).map((e) => e.path);
  }

  async log(path: string, count: number, ref?: string): Promise<string[]> {
    if (ref) assertValidBranchName(ref);
    try {
      const out = await this.git(path).raw(['log', '--oneline', '--no-decorate', `-n${count}`, ...(ref ? [ref, '--'] : [])]);
      return out.split('\n').filter(Boolean);
    } catch (err) {
      if (/does not have any commits|bad default revision/.test(String(err))) return [];
      throw toGitError(err);
    }
  }

  // --- branches and commits -----------------------------------------------------------------

  async createBranch(path: string, name: string, options: { checkout?: boolean; startPoint?: string } = {}): Promise<void> {
    assertValidBranchName(name);
    if (options.startPoint) assertValidBranchName(options.startPoint.replace(/^origin\//, ''));
    if (await this.branchExists(path, name)) throw new GitError(`Branch '${name}' already exists.`);
    const start = options.startPoint ? [options.startPoint] : [];
    await this.run(path, options.checkout === false ? ['branch', name, ...start] : ['checkout', '-b', name, ...start]);
  }

  async checkout(path: string, name: string): Promise<void> {
    assertValidBranchName(name);
    if (!(await this.branchExists(path, name))) {
      const remote = (await this.run(path, ['branch', '-r', '--list', `origin/${name}`])).trim();
      if (!remote) throw new GitError(`Branch '${name}' not found.`);
    }
    await this.run(path, ['checkout', name, '--']);
  }

  async deleteBranch(path: string, name: string, options: { force?: boolean } = {}): Promise<void> {
    assertValidBranchName(name);
    await this.run(path, ['branch', options.force ? '-D' : '-d', name]);
  }

  private async identityArgs(path: string): Promise<string[]> {
    try {
      const email = (await this.git(path).raw(['config', '--get', 'user.email'])).trim();
      return email ? [] : FALLBACK_IDENTITY;
    } catch {
      return FALLBACK_IDENTITY;
    }
  }

  /** Stages everything and commits; nothing to commit is not an error. */
  async commitAll(path: string, message: string): Promise<{ committed: boolean; sha?: string }> {
    await this.run(path, ['add', '-A']);
    if ((await this.run(path, ['diff', '--cached', '--name-only'])).trim() === '') return { committed: false };
    await this.run(path, [...(await this.identityArgs(path)), 'commit', '-m', message]);
    return { committed: true, sha: await this.headSha(path) };
  }

  async push(path: string, branch: string, options: { forceWithLease?: boolean; setUpstream?: boolean } = {}): Promise<void> {
    assertValidBranchName(branch);
    const args = ['push', ...(options.setUpstream !== false ? ['-u'] : []), ...(options.forceWithLease ? ['--force-with-lease'] : []), 'origin', `${branch}:${branch}`];
    try {
      await this.git(path).raw(args);
    } catch (err) {
      throw toGitError(err, `Could not push '${branch}'`);
    }
  }

  async fetch(path: string, options: { prune?: boolean } = {}): Promise<void> {
    try {
      await this.git(path).raw(['fetch', 'origin', ...(options.prune ? ['--prune'] : [])]);
    } catch (err) {
      throw toGitError(err, 'Could not fetch from origin');
    }
  }

  /**
   * Merges `branch` into `into` (checked out for the merge). A conflict is aborted, so the tree
   * is exactly as before, and reported as a result rather than an error.
   */
  async merge(path: string, branch: string, into: string): Promise<MergeOutcome> {
    assertValidBranchName(branch);
    assertValidBranchName(into);
    if (await this.hasUncommittedChanges(path)) {
      throw new GitError('You have uncommitted changes; commit or stash them before merging.');
    }
    if (!(await this.branchExists(path, branch))) throw new GitError(`Branch '${branch}' not found.`);
    if ((await this.currentBranch(path)) !== into) await this.checkout(path, into);
    const identity = await this.identityArgs(path);
    try {
      await this.git(path).raw([...identity, 'merge', '--no-edit', branch]);
    } catch (err) {
      const files = await this.conflictedFiles(path);
      if (files.length === 0) throw toGitError(err);
    }
    const files = await this.conflictedFiles(path);
    if (files.length > 0) {
      await this.run(path, ['merge', '--abort']);
      return { status: 'conflict', files };
    }
    return { status: 'merged' };
  }

  // --- diffs --------------------------------------------------------------------------------

  /** Unstaged working-tree changes, or, with `base`, everything (committed or not) that differs from it. */
  async diff(path: string, base?: string): Promise<string> {
    if (base) assertValidBranchName(base);
    return this.run(path, base ? ['diff', base, '--'] : ['diff']);
  }

  /** What `branch` changed since it left `base` (three-dot). */
  async diffBranch(path: string, base: string, branch: string): Promise<string> {
    assertValidBranchName(base);
    assertValidBranchName(branch);
    return this.run(path, ['diff', `${base}...${branch}`, '--']);
  }

  /** Files changed against `base` since the merge base, plus uncommitted ones. */
  async changedFiles(path: string, base: string): Promise<string[]> {
    assertValidBranchName(base);
    const committed = (await this.run(path, ['diff', '--name-only', `${base}...HEAD`, '--'])).split('\n');
    const pending = (await this.porcelainStatus(path)).map((e) => e.path.replace(/^.* -> /, ''));
    return [...new Set([...committed, ...pending].filter(Boolean))].sort();
  }
}
