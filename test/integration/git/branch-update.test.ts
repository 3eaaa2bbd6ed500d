import path from 'node:path';
import { updateBranchToBase } from '../../../src/git/branch-update';
import { GitManager } from '../../../src/git/git-manager';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

/** The merge train's update step, on real git repositories. */
describe('updateBranchToBase', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let origin: string;
  let ws: string;
  const git = new GitManager();

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-update-'));
    origin = await createOriginRepo(dir, { files: { 'app.txt': 'one\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
    await gitOut(ws, 'checkout', '-q', '-b', 'task/x');
    await commitFile(ws, 'app.txt', 'task\n');
    const other = await cloneWorkspace(origin, path.join(dir, 'other'));
    await commitFile(other, 'app.txt', 'main\n');
    await gitOut(other, 'push', '-q', 'origin', 'main');
  });
  afterEach(() => cleanup());

  it('starts over from a rebase a killed lander left half done, and reports the conflict', async () => {
    // What a killed lander leaves: a rebase stopped on a conflict, on a detached HEAD.
    await gitOut(ws, 'fetch', '-q', 'origin');
    await expect(gitOut(ws, 'rebase', 'origin/main')).rejects.toThrow();
    expect(await gitOut(ws, 'status')).toContain('rebase in progress');

    const result = await updateBranchToBase(git, ws, { branch: 'task/x', defaultBranch: 'main', mode: 'rebase' });
    expect(result).toEqual({ status: 'conflict', files: ['app.txt'], base: 'origin/main' });
    expect(await gitOut(ws, 'status')).not.toContain('rebase in progress');
    expect(await git.currentBranch(ws)).toBe('task/x');
    expect(await gitOut(ws, 'status', '--porcelain')).toBe('');
  });

  it('starts over from a merge left half done, and updates a branch that does not conflict', async () => {
    await gitOut(ws, 'checkout', '-q', '-b', 'task/y', 'main');
    await commitFile(ws, 'own.txt', 'own\n');
    // A landing killed mid-merge on another branch of the same workspace.
    await gitOut(ws, 'checkout', '-q', 'task/x');
    await gitOut(ws, 'fetch', '-q', 'origin');
    await expect(gitOut(ws, 'merge', '--no-edit', 'origin/main')).rejects.toThrow();
    expect(await gitOut(ws, 'status')).toContain('unmerged');

    const result = await updateBranchToBase(git, ws, { branch: 'task/y', defaultBranch: 'main', mode: 'rebase' });
    expect(result).toEqual({ status: 'updated', base: 'origin/main', originFetched: true });
    expect(await git.currentBranch(ws)).toBe('task/y');
    expect(await gitOut(ws, 'show', 'HEAD:app.txt')).toBe('main');
    expect(await gitOut(ws, 'show', 'HEAD:own.txt')).toBe('own');
    expect(await gitOut(ws, 'status', '--porcelain')).toBe('');
  });

  it('in a linked worktree (its .git a file), starts over from a rebase left half done there too', async () => {
    const linked = path.join(dir, 'linked');
    await gitOut(ws, 'worktree', 'add', '-q', '-b', 'task/z', linked, 'task/x');
    await gitOut(linked, 'fetch', '-q', 'origin');
    await expect(gitOut(linked, 'rebase', 'origin/main')).rejects.toThrow();
    expect(await gitOut(linked, 'status')).toContain('rebase in progress');

    const result = await updateBranchToBase(git, linked, { branch: 'task/z', defaultBranch: 'main', mode: 'rebase' });
    expect(result).toEqual({ status: 'conflict', files: ['app.txt'], base: 'origin/main' });
    expect(await gitOut(linked, 'status')).not.toContain('rebase in progress');
    expect(await git.currentBranch(linked)).toBe('task/z');
    // The main working tree was never in the middle of anything.
    expect(await gitOut(ws, 'status')).not.toContain('rebase in progress');
  });
});
