import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { syncWorkspace } from '../../../src/git/sync';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut, snapshot } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

describe('GitManager.syncWorkspace (sync_workspaces steps 3–7)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let origin: string;
  let ws: string;
  const git = new GitManager();

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-sync-'));
    origin = await createOriginRepo(dir, { files: { 'app.txt': 'line one\nline two\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  /** Someone else pushes a commit to origin's main; returns origin's new main sha. */
  async function advanceMain(file = 'theirs.txt', content = 't\n'): Promise<string> {
    const other = await cloneWorkspace(origin, path.join(dir, `other-${Math.random().toString(36).slice(2)}`));
    await commitFile(other, file, content);
    await gitOut(other, 'push', 'origin', 'main');
    return gitOut(origin, 'rev-parse', 'main');
  }

  it('on the default branch: stashes uncommitted work (kept), resets to origin, never pushes', async () => {
    const originMain = await advanceMain('remote.txt', 'r\n');
    await writeFile(path.join(ws, 'local.txt'), 'local\n');
    await writeFile(path.join(ws, 'app.txt'), 'edited\n');
    const result = await git.syncWorkspace(ws, { defaultBranch: 'main' });
    expect(result).toMatchObject({ status: 'synced', branch: 'main', stashed: true, pushed: false });
    expect(result.actions).toEqual(expect.arrayContaining(['fetched origin (pruned)', 'reset main to origin/main']));
    expect(await gitOut(ws, 'rev-parse', 'HEAD')).toBe(originMain);
    expect(await readFile(path.join(ws, 'remote.txt'), 'utf8')).toBe('r\n');
    expect(await git.statusText(ws)).toBe('');
    expect(await gitOut(ws, 'stash', 'list')).toMatch(/agent-queue sync/);
    await gitOut(ws, 'stash', 'pop');
    expect(await readFile(path.join(ws, 'local.txt'), 'utf8')).toBe('local\n');
    expect(await gitOut(origin, 'rev-parse', 'main')).toBe(originMain);
  });

  it('keeps unpushed commits of the default branch on a backup branch before resetting it', async () => {
    const mine = await commitFile(ws, 'unpushed.txt', 'u\n');
    const originMain = await advanceMain();
    const result = await git.syncWorkspace(ws, { defaultBranch: 'main' });
    expect(result).toMatchObject({
      status: 'synced',
      branch: 'main',
      stashed: false,
      backupBranch: expect.stringMatching(/^agent-queue\/backup\/main-/),
    });
    expect(await gitOut(ws, 'rev-parse', result.backupBranch!)).toBe(mine);
    expect(await gitOut(ws, 'rev-parse', 'main')).toBe(originMain);
    expect(await gitOut(origin, 'rev-parse', 'main')).toBe(originMain); // nothing pushed, nothing forced
  });

  it('on a feature branch: auto-commits, pushes with a lease, updates main, rebases; no commit lost', async () => {
    await git.createBranch(ws, 'feature');
    await commitFile(ws, 'mine.txt', 'mine\n');
    await commitFile(ws, 'mine2.txt', 'mine2\n');
    await writeFile(path.join(ws, 'wip.txt'), 'wip\n');
    const originMain = await advanceMain();

    const result = await git.syncWorkspace(ws, { defaultBranch: 'main' });
    expect(result).toMatchObject({ status: 'synced', branch: 'feature', autoCommitted: true, pushed: true, rebased: true });
    expect(result.actions).toEqual([
      'fetched origin (pruned)',
      'committed uncommitted changes',
      'pushed feature (force-with-lease)',
      'reset main to origin/main',
      'rebased feature onto origin/main',
    ]);
    expect((await gitOut(ws, 'log', '--format=%s', 'feature')).split('\n')).toEqual([
      'WIP: automatic commit before sync',
      'edit mine2.txt',
      'edit mine.txt',
      'edit theirs.txt',
      'Initial commit',
    ]);
    expect(await gitOut(ws, 'rev-parse', 'main')).toBe(originMain);
    expect(await gitOut(ws, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('feature');
    expect(await gitOut(origin, 'rev-parse', 'main')).toBe(originMain);
    expect(await gitOut(origin, 'log', '--format=%s', 'feature')).toContain('WIP: automatic commit before sync');

    // The next sync force-pushes the rebased branch over its old copy (the lease holds).
    const again = await git.syncWorkspace(ws, { defaultBranch: 'main' });
    expect(again).toMatchObject({ status: 'synced', autoCommitted: false, pushed: true, rebased: false });
    expect(await gitOut(origin, 'rev-parse', 'feature')).toBe(await gitOut(ws, 'rev-parse', 'feature'));
  });

  it('aborts a conflicting rebase and leaves the branch exactly as it was', async () => {
    await git.createBranch(ws, 'feature');
    await commitFile(ws, 'app.txt', 'line one\nFEATURE\n');
    await commitFile(ws, 'more.txt', 'more\n');
    await advanceMain('app.txt', 'line one\nMAIN\n');
    const before = await snapshot(ws);
    const result = await git.syncWorkspace(ws, { defaultBranch: 'main' });
    expect(result).toMatchObject({ status: 'conflict', branch: 'feature', pushed: true, rebased: false });
    expect(result.message).toBe(
      "Rebasing 'feature' onto origin/main conflicts (conflicts in app.txt); the rebase was aborted and the branch left as it was.",
    );
    expect(await snapshot(ws)).toEqual(before);
    expect(await gitOut(origin, 'rev-parse', 'feature')).toBe(before.head);
  });

  it('never force-pushes over commits on origin that the workspace does not have', async () => {
    await git.createBranch(ws, 'feature');
    await commitFile(ws, 'mine.txt', 'mine\n');
    await gitOut(ws, 'push', '-u', 'origin', 'feature');
    const colleague = await cloneWorkspace(origin, path.join(dir, 'colleague'));
    await gitOut(colleague, 'checkout', 'feature');
    const theirs = await commitFile(colleague, 'theirs.txt', 'theirs\n');
    await gitOut(colleague, 'push', 'origin', 'feature');
    await gitOut(ws, 'commit', '--amend', '-m', 'rewritten locally'); // diverge
    const before = await snapshot(ws);
    const result = await git.syncWorkspace(ws, { defaultBranch: 'main' });
    expect(result).toMatchObject({ status: 'conflict', pushed: false, rebased: false });
    expect(result.message).toMatch(/^origin\/feature has 1 commit\(s\) this workspace does not have/);
    expect(await gitOut(origin, 'rev-parse', 'feature')).toBe(theirs);
    expect(await snapshot(ws)).toEqual(before);
  });

  it('refuses a detached HEAD and an unresolved conflict; the legacy entry point speaks snake_case', async () => {
    await gitOut(ws, 'checkout', '--detach');
    expect(await git.syncWorkspace(ws, { defaultBranch: 'main' })).toMatchObject({
      status: 'error',
      branch: null,
      message: expect.stringContaining('detached'),
    });
    await gitOut(ws, 'checkout', 'main');
    await git.createBranch(ws, 'left');
    await commitFile(ws, 'app.txt', 'line one\nLEFT\n');
    await git.checkout(ws, 'main');
    await commitFile(ws, 'app.txt', 'line one\nMAIN\n');
    await expect(gitOut(ws, 'merge', 'left')).rejects.toThrow();
    expect(await git.syncWorkspace(ws, { defaultBranch: 'main' })).toMatchObject({
      status: 'conflict',
      message: expect.stringContaining('app.txt'),
    });
    await gitOut(ws, 'merge', '--abort');
    await git.checkout(ws, 'left');
    await writeFile(path.join(ws, 'w.txt'), 'w');
    expect(await syncWorkspace(git, ws, 'main')).toMatchObject({ status: 'synced', auto_committed: true, pushed: true });
  });

  it('in a worktree, moves the default branch by reference update', async () => {
    // The primary clone works on a feature branch, so main is checked out nowhere.
    await gitOut(ws, 'checkout', '-b', 'primary-work');
    const wt = path.join(dir, 'wt');
    await gitOut(ws, 'worktree', 'add', '-b', 'wt-branch', wt, 'main');
    await commitFile(wt, 'wt.txt', 'wt\n');
    const originMain = await advanceMain();
    const result = await git.syncWorkspace(wt, { defaultBranch: 'main' });
    expect(result).toMatchObject({ status: 'synced', branch: 'wt-branch', pushed: true, rebased: true });
    expect(result.actions).toContain('moved main to origin/main (reference update)');
    expect(await gitOut(ws, 'rev-parse', 'main')).toBe(originMain);
    expect(await gitOut(ws, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('primary-work');
    expect(await readFile(path.join(wt, 'theirs.txt'), 'utf8')).toBe('t\n');
    expect(await readFile(path.join(wt, 'wt.txt'), 'utf8')).toBe('wt\n');
  });

  it('in a worktree, leaves the default branch alone when another worktree has it checked out', async () => {
    const wt = path.join(dir, 'wt');
    await gitOut(ws, 'worktree', 'add', '-b', 'wt-branch', wt);
    await commitFile(wt, 'wt.txt', 'wt\n');
    await advanceMain();
    const primary = await snapshot(ws);
    const result = await git.syncWorkspace(wt, { defaultBranch: 'main' });
    expect(result).toMatchObject({ status: 'synced', branch: 'wt-branch', rebased: true });
    expect(result.actions).toContain(`left main alone (checked out in ${await gitOut(ws, 'rev-parse', '--show-toplevel')})`);
    expect(await snapshot(ws)).toEqual(primary); // no phantom changes under the primary checkout
  });
});
