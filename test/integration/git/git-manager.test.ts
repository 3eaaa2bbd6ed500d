import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { branchNameForTask, assertValidBranchName } from '../../../src/git/branch-names';
import { GitManager } from '../../../src/git/git-manager';
import { findBranchConflicts } from '../../../src/git/merge-check';
import { createPullRequest } from '../../../src/git/pull-requests';
import { syncWorkspace } from '../../../src/git/sync';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut, pushBranch } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

describe('GitManager on real repositories', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let origin: string;
  let ws: string;
  const git = new GitManager();

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-'));
    origin = await createOriginRepo(dir, { files: { 'app.txt': 'line one\nline two\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  it('tells a missing directory from a directory that is not a repository', async () => {
    await expect(git.assertRepo(path.join(dir, 'nope'))).rejects.toThrow(`Directory not found: ${path.join(dir, 'nope')}`);
    await mkdir(path.join(dir, 'plain'));
    await expect(git.assertRepo(path.join(dir, 'plain'))).rejects.toThrow('Not a git repository');
    await expect(git.assertRepo(ws)).resolves.toBeUndefined();
  });

  it('reads branches, status and log; reports a detached HEAD as no branch', async () => {
    expect(await git.currentBranch(ws)).toBe('main');
    expect(await git.detectDefaultBranch(ws)).toBe('main');
    expect(await git.statusText(ws)).toBe('');
    await writeFile(path.join(ws, 'new.txt'), 'x');
    expect(await git.statusText(ws)).toBe('?? new.txt');
    expect(await git.log(ws, 5)).toEqual([expect.stringMatching(/^[0-9a-f]+ Initial commit$/)]);
    await gitOut(ws, 'checkout', '--detach');
    expect(await git.currentBranch(ws)).toBeNull();
  });

  it('creates, checks out and refuses bad or duplicate branches before git runs', async () => {
    await git.createBranch(ws, 'feature/x');
    expect(await git.currentBranch(ws)).toBe('feature/x');
    await expect(git.createBranch(ws, 'feature/x')).rejects.toThrow("Branch 'feature/x' already exists.");
    await expect(git.checkout(ws, 'nope')).rejects.toThrow("Branch 'nope' not found.");
    for (const bad of ['--upload-pack=touch /tmp/pwned', 'a..b', '-x', 'has space', 'x.lock', '']) {
      await expect(git.createBranch(ws, bad)).rejects.toThrow(/^Invalid branch name/);
    }
    expect(() => assertValidBranchName('ok/name-1')).not.toThrow();
    expect(branchNameForTask('swift-fox-042', 'Add the Login page!')).toBe('swift-fox-042/add-the-login-page');
  });

  it('commits everything, treating nothing to commit as a result, even with no identity configured', async () => {
    await gitOut(ws, 'config', '--unset', 'user.email');
    await writeFile(path.join(ws, 'a.txt'), 'a');
    const first = await git.commitAll(ws, 'add a');
    expect(first).toEqual({ committed: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(await git.commitAll(ws, 'again')).toEqual({ committed: false });
  });

  it('merges cleanly, and aborts a conflicting merge leaving the tree exactly as before', async () => {
    await git.createBranch(ws, 'clean');
    await commitFile(ws, 'other.txt', 'other\n');
    await git.checkout(ws, 'main');
    expect(await git.merge(ws, 'clean', 'main')).toEqual({ status: 'merged' });

    await git.createBranch(ws, 'left');
    await commitFile(ws, 'app.txt', 'line one\nLEFT\n');
    await git.checkout(ws, 'main');
    await commitFile(ws, 'app.txt', 'line one\nMAIN\n');
    const head = await git.headSha(ws);
    expect(await git.merge(ws, 'left', 'main')).toEqual({ status: 'conflict', files: ['app.txt'] });
    expect(await git.headSha(ws)).toBe(head);
    expect(await git.statusText(ws)).toBe('');
    expect(await readFile(path.join(ws, 'app.txt'), 'utf8')).toBe('line one\nMAIN\n');

    await writeFile(path.join(ws, 'app.txt'), 'dirty');
    await expect(git.merge(ws, 'left', 'main')).rejects.toThrow('uncommitted changes');
  });

  it('diffs the working tree, against a branch, and lists changed files', async () => {
    expect(await git.diff(ws)).toBe('');
    await git.createBranch(ws, 'work');
    await commitFile(ws, 'b.txt', 'b\n');
    await writeFile(path.join(ws, 'app.txt'), 'changed\n');
    expect(await git.diff(ws)).toContain('+changed');
    expect(await git.diff(ws, 'main')).toContain('b.txt');
    expect(await git.diffBranch(ws, 'main', 'work')).toContain('+b');
    expect(await git.changedFiles(ws, 'main')).toEqual(['app.txt', 'b.txt']);
  });

  it('finds conflicting remote branches without touching the tree, skipping dependabot', async () => {
    await pushBranch(origin, path.join(dir, 's1'), 'feature/conflict', 'app.txt', 'line one\nFEATURE\n');
    await pushBranch(origin, path.join(dir, 's2'), 'feature/fine', 'new.txt', 'fine\n');
    await pushBranch(origin, path.join(dir, 's3'), 'dependabot/npm/x', 'app.txt', 'line one\nBOT\n');
    await commitFile(ws, 'app.txt', 'line one\nMAIN\n');
    await gitOut(ws, 'push', 'origin', 'main');
    await git.fetch(ws, { prune: true });
    const before = await git.headSha(ws);
    expect(await findBranchConflicts(git, ws, 'main')).toEqual([
      { branch: 'feature/conflict', conflictingFiles: ['app.txt'], commitsBehindMain: '1' },
    ]);
    expect(await git.headSha(ws)).toBe(before);
    expect(await git.statusText(ws)).toBe('');
  });

  it('syncs the default branch by stashing and resetting to origin', async () => {
    const other = await cloneWorkspace(origin, path.join(dir, 'other'));
    await commitFile(other, 'remote.txt', 'r\n');
    await gitOut(other, 'push', 'origin', 'main');
    await writeFile(path.join(ws, 'local.txt'), 'local\n');
    const result = await syncWorkspace(git, ws, 'main');
    expect(result).toMatchObject({ status: 'synced', branch: 'main', stashed: true });
    expect(await readFile(path.join(ws, 'remote.txt'), 'utf8')).toBe('r\n');
    expect(await gitOut(ws, 'stash', 'list')).toContain('agent-queue sync');
  });

  it('syncs a feature branch: commits, pushes with lease, rebases; never loses commits', async () => {
    await git.createBranch(ws, 'feature');
    const mine = await commitFile(ws, 'mine.txt', 'mine\n');
    await writeFile(path.join(ws, 'wip.txt'), 'wip\n');
    const other = await cloneWorkspace(origin, path.join(dir, 'other'));
    await commitFile(other, 'theirs.txt', 't\n');
    await gitOut(other, 'push', 'origin', 'main');
    const mainBefore = await gitOut(origin, 'rev-parse', 'main');

    const result = await syncWorkspace(git, ws, 'main');
    expect(result).toMatchObject({ status: 'synced', branch: 'feature', auto_committed: true, pushed: true, rebased: true });
    const log = await gitOut(ws, 'log', '--format=%s');
    expect(log).toContain(`edit mine.txt`);
    expect(log).toContain('WIP: automatic commit before sync');
    expect(log).toContain('edit theirs.txt');
    expect(await gitOut(origin, 'rev-parse', 'main')).toBe(mainBefore);
    expect(await gitOut(origin, 'log', '--format=%s', 'feature')).toContain('edit mine.txt');
    expect(mine).toMatch(/^[0-9a-f]{40}$/);
  });

  it('aborts a conflicting rebase during sync and leaves the branch as it was', async () => {
    await git.createBranch(ws, 'feature');
    await commitFile(ws, 'app.txt', 'line one\nFEATURE\n');
    const other = await cloneWorkspace(origin, path.join(dir, 'other'));
    await commitFile(other, 'app.txt', 'line one\nMAIN\n');
    await gitOut(other, 'push', 'origin', 'main');
    const before = await git.headSha(ws);
    const result = await syncWorkspace(git, ws, 'main');
    expect(result).toMatchObject({ status: 'conflict', branch: 'feature', rebased: false });
    expect(await git.headSha(ws)).toBe(before);
    expect(await git.currentBranch(ws)).toBe('feature');
    expect(await git.statusText(ws)).toBe('');
    expect(await readFile(path.join(ws, 'app.txt'), 'utf8')).toBe('line one\nFEATURE\n');
  });

  it('updates the default branch by reference in a worktree', async () => {
    await gitOut(ws, 'worktree', 'add', '-b', 'wt-branch', path.join(dir, 'wt'));
    const wt = path.join(dir, 'wt');
    await commitFile(wt, 'wt.txt', 'wt\n');
    const other = await cloneWorkspace(origin, path.join(dir, 'other'));
    await commitFile(other, 'remote.txt', 'r\n');
    await gitOut(other, 'push', 'origin', 'main');
    // main is checked out in the primary clone, so a checkout in the worktree would fail.
    const result = await syncWorkspace(git, wt, 'main');
    expect(result).toMatchObject({ status: 'synced', branch: 'wt-branch', rebased: true });
    expect(await gitOut(ws, 'rev-parse', 'main')).toBe(await gitOut(ws, 'rev-parse', 'origin/main'));
  });

  it('opens pull requests through gh, with clear errors when gh is missing or logged out', async () => {
    const pr = { title: 'T', body: 'B', branch: 'feature', base: 'main' };
    await expect(createPullRequest(path.join(dir, 'no-such-gh'), ws, pr)).rejects.toThrow('The GitHub CLI (gh) is not installed');
    const fakeGh = path.join(dir, 'gh');
    const argsLog = path.join(dir, 'gh-args.txt');
    await writeFile(fakeGh, `#!/bin/sh\necho "$@" >> ${argsLog}\nif [ "$1" = auth ]; then exit \${GH_AUTH_EXIT:-0}; fi\necho "https://github.com/o/r/pull/7"\n`);
    await chmod(fakeGh, 0o755);
    expect(await createPullRequest(fakeGh, ws, pr)).toBe('https://github.com/o/r/pull/7');
    expect(await readFile(argsLog, 'utf8')).toBe('auth status\npr create --title T --body B --head feature --base main\n');
    process.env.GH_AUTH_EXIT = '1';
    try {
      await expect(createPullRequest(fakeGh, ws, pr)).rejects.toThrow('not logged in');
    } finally {
      delete process.env.GH_AUTH_EXIT;
    }
  });

  it('keeps the event loop free while cloning', async () => {
    const big: Record<string, string> = {};
    for (let i = 0; i < 300; i++) big[`dir${i % 10}/file${i}.txt`] = `content ${i}\n`.repeat(20);
    const bigOrigin = await createOriginRepo(await makeTempDir('aq-big-').then((t) => t.dir), { files: big });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await git.clone(bigOrigin, path.join(dir, 'big-clone'));
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
    expect(await git.isRepo(path.join(dir, 'big-clone'))).toBe(true);
  });
});
