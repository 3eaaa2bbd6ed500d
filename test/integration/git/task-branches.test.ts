import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut, snapshot } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

describe('GitManager: task branches for the orchestrator', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let origin: string;
  let ws: string;
  const git = new GitManager();
  const branch = git.branchNameForTask('swift-fox', 'Add login');

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-task-'));
    origin = await createOriginRepo(dir, { files: { 'app.txt': 'line one\nline two\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  async function advanceMain(file = 'theirs.txt', content = 't\n'): Promise<string> {
    const other = await cloneWorkspace(origin, path.join(dir, `other-${Math.random().toString(36).slice(2)}`));
    await commitFile(other, file, content);
    await gitOut(other, 'push', 'origin', 'main');
    return gitOut(origin, 'rev-parse', 'main');
  }

  it('prepares a new task branch from an up-to-date default branch', async () => {
    const originMain = await advanceMain();
    const result = await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    expect(result).toMatchObject({ branch: 'swift-fox/add-login', created: true, rebased: false, defaultUpdated: true });
    expect(await git.currentBranch(ws)).toBe(branch);
    expect(await gitOut(ws, 'rev-parse', 'HEAD')).toBe(originMain);
    expect(await gitOut(ws, 'rev-parse', 'main')).toBe(originMain);
  });

  it('reuses an existing branch and rebases it when that is clean, else leaves it as it was', async () => {
    await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    await commitFile(ws, 'work.txt', 'work\n');
    await advanceMain();
    const reused = await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    expect(reused).toMatchObject({ created: false, rebased: true });
    expect((await gitOut(ws, 'log', '--format=%s')).split('\n').slice(0, 2)).toEqual(['edit work.txt', 'edit theirs.txt']);

    await commitFile(ws, 'app.txt', 'line one\nTASK\n');
    await advanceMain('app.txt', 'line one\nMAIN\n');
    const before = await snapshot(ws);
    const kept = await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    expect(kept).toMatchObject({ created: false, rebased: false });
    expect(kept.actions.at(-1)).toMatch(/would conflict; .* left as it was$/);
    expect(await snapshot(ws)).toEqual(before);
  });

  it('merges a task into an origin that moved on: fetch, rebase, merge, push', async () => {
    await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    await commitFile(ws, 'feature.txt', 'f\n');
    await advanceMain(); // the local main is now stale (G1): it must be updated first
    const result = await git.mergeTaskBranch(ws, { branch, defaultBranch: 'main', push: true });
    expect(result).toMatchObject({ status: 'merged', pushed: true, rebased: true });
    const originLog = (await gitOut(origin, 'log', '--format=%s', 'main')).split('\n');
    expect(originLog.slice(0, 2)).toEqual(['edit feature.txt', 'edit theirs.txt']);
    expect(await git.currentBranch(ws)).toBe('main');
    expect(await git.statusText(ws)).toBe('');
    if (result.status === 'merged') expect(result.sha).toBe(await gitOut(origin, 'rev-parse', 'main'));
  });

  it('on a conflict, restores a clean workspace on the task branch and pushes nothing', async () => {
    await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    await commitFile(ws, 'app.txt', 'line one\nTASK\n');
    const originMain = await advanceMain('app.txt', 'line one\nMAIN\n');
    const before = await snapshot(ws);
    const result = await git.mergeTaskBranch(ws, { branch, defaultBranch: 'main', push: true });
    expect(result).toMatchObject({ status: 'conflict', files: ['app.txt'] });
    if (result.status !== 'merged') expect(result.message).toContain(`the workspace was restored to '${branch}'`);
    expect(await snapshot(ws)).toEqual(before);
    expect(await gitOut(origin, 'rev-parse', 'main')).toBe(originMain);
  });

  it('when origin refuses the push, undoes the local merge and returns to the task branch', async () => {
    await writeFile(path.join(origin, 'hooks', 'pre-receive'), '#!/bin/sh\necho "main is frozen" >&2\nexit 1\n');
    await chmod(path.join(origin, 'hooks', 'pre-receive'), 0o755);
    const originMain = await gitOut(origin, 'rev-parse', 'main');
    await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    const work = await commitFile(ws, 'feature.txt', 'f\n');
    const result = await git.mergeTaskBranch(ws, { branch, defaultBranch: 'main', push: true });
    expect(result).toMatchObject({ status: 'push_failed' });
    if (result.status !== 'merged') {
      expect(result.message).toMatch(
        /^Could not push 'main': origin refused the push: pre-receive hook declined; the workspace was restored/,
      );
      expect(result.message).not.toMatch(/\n/);
    }
    expect(await git.currentBranch(ws)).toBe(branch);
    expect(await git.statusText(ws)).toBe('');
    expect(await gitOut(ws, 'rev-parse', 'HEAD')).toBe(work);
    expect(await gitOut(ws, 'rev-parse', 'main')).toBe(originMain);
    expect(await gitOut(origin, 'rev-parse', 'main')).toBe(originMain);
  });

  it('merges locally when there is no origin', async () => {
    const local = path.join(dir, 'local');
    await git.init(local, { defaultBranch: 'main' });
    const prepared = await git.prepareTaskBranch(local, { defaultBranch: 'main', branch });
    expect(prepared).toMatchObject({ created: true, defaultUpdated: false });
    await writeFile(path.join(local, 'x.txt'), 'x\n');
    await git.commitAll(local, 'add x');
    expect(await git.mergeTaskBranch(local, { branch, defaultBranch: 'main', push: true })).toMatchObject({
      status: 'merged',
      pushed: false,
    });
    expect(await readFile(path.join(local, 'x.txt'), 'utf8')).toBe('x\n');
    expect(await git.currentBranch(local)).toBe('main');
  });

  it('refuses to merge a dirty tree or a branch that does not exist', async () => {
    await git.prepareTaskBranch(ws, { defaultBranch: 'main', branch });
    await writeFile(path.join(ws, 'loose.txt'), 'l');
    await expect(git.mergeTaskBranch(ws, { branch, defaultBranch: 'main', push: true })).rejects.toThrow('You have uncommitted changes');
    await expect(git.mergeTaskBranch(ws, { branch: 'ghost', defaultBranch: 'main', push: true })).rejects.toThrow(
      "Branch 'ghost' not found.",
    );
  });

  it('refuses to force-push the default branch, and a stale lease fails in one line', async () => {
    await expect(git.push(ws, 'main', { forceWithLease: true })).rejects.toThrow("Refusing to force-push the default branch 'main'.");
    await git.createBranch(ws, 'feature');
    await commitFile(ws, 'f.txt', 'f\n');
    await git.push(ws, 'feature');
    await gitOut(ws, 'commit', '--amend', '-m', 'amended');
    await git.push(ws, 'feature', { forceWithLease: true });
    expect(await gitOut(origin, 'log', '-1', '--format=%s', 'feature')).toBe('amended');
    const stale = await gitOut(ws, 'rev-parse', 'HEAD~1');
    await gitOut(ws, 'commit', '--amend', '-m', 'again');
    await expect(git.push(ws, 'feature', { forceWithLease: { expected: stale } })).rejects.toThrow(
      "Could not push 'feature': origin changed since the last fetch, so the force-with-lease push was refused",
    );
  });
});
