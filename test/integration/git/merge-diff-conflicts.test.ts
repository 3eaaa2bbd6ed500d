import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DIFF_READ_BYTES } from '../../../src/git/diffs';
import { GitManager } from '../../../src/git/git-manager';
import { OUTPUT_LIMIT_BYTES } from '../../../src/git/git-runner';
import { findBranchConflicts } from '../../../src/git/merge-check';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut, pushBranch, snapshot } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

describe('GitManager: merges, diffs and conflict detection', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let origin: string;
  let ws: string;
  const git = new GitManager();

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-merge-'));
    origin = await createOriginRepo(dir, { files: { 'app.txt': 'line one\nline two\n', 'keep.txt': 'keep\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  /** `left` and main both edit line two of app.txt. */
  async function conflictingBranches(): Promise<void> {
    await git.createBranch(ws, 'left');
    await commitFile(ws, 'app.txt', 'line one\nLEFT\n');
    await commitFile(ws, 'left-only.txt', 'l\n');
    await git.checkout(ws, 'main');
    await commitFile(ws, 'app.txt', 'line one\nMAIN\n');
  }

  it('merges cleanly into the target branch', async () => {
    await git.createBranch(ws, 'clean');
    await commitFile(ws, 'other.txt', 'other\n');
    expect(await git.merge(ws, 'clean', 'main')).toEqual({ status: 'merged' });
    expect(await git.currentBranch(ws)).toBe('main');
    expect(await readFile(path.join(ws, 'other.txt'), 'utf8')).toBe('other\n');
  });

  it('aborts a conflicting merge: same HEAD, clean status, same files', async () => {
    await conflictingBranches();
    const before = await snapshot(ws);
    expect(await git.merge(ws, 'left', 'main')).toEqual({ status: 'conflict', files: ['app.txt'] });
    expect(await snapshot(ws)).toEqual(before);
    expect(before.files['app.txt']).toBe('line one\nMAIN\n');
  });

  it('returns to the branch it started on when a merge into another branch conflicts', async () => {
    await conflictingBranches();
    await git.createBranch(ws, 'elsewhere');
    const before = await snapshot(ws);
    expect(await git.merge(ws, 'left', 'main')).toMatchObject({ status: 'conflict' });
    expect(await snapshot(ws)).toEqual(before);
  });

  it('refuses to merge on a dirty tree, or a missing branch, without touching anything', async () => {
    await conflictingBranches();
    await writeFile(path.join(ws, 'app.txt'), 'dirty');
    const before = await snapshot(ws);
    await expect(git.merge(ws, 'left', 'main')).rejects.toThrow('You have uncommitted changes; commit or stash them before merging.');
    expect(await snapshot(ws)).toEqual(before);
    await gitOut(ws, 'checkout', '--', 'app.txt');
    await expect(git.merge(ws, 'ghost', 'main')).rejects.toThrow("Branch 'ghost' not found.");
    await expect(git.merge(ws, 'left', 'ghost')).rejects.toThrow("Branch 'ghost' not found.");
  });

  it('diffs: unstaged changes without a base; with one, everything since the merge base, uncommitted included', async () => {
    expect(await git.diff(ws)).toEqual({ text: '', cut: false });
    await git.createBranch(ws, 'work');
    await commitFile(ws, 'b.txt', 'b\n');
    await writeFile(path.join(ws, 'app.txt'), 'changed\n');
    await writeFile(path.join(ws, 'untracked.txt'), 'u\n');
    // main moves on after `work` left it: that must not show up as reversed noise.
    await gitOut(ws, 'update-ref', 'refs/heads/main', await commitOnMain());

    const unstaged = (await git.diff(ws)).text;
    expect(unstaged).toContain('+changed');
    expect(unstaged).not.toContain('b.txt');
    const sinceMain = (await git.diff(ws, { base: 'main' })).text;
    expect(sinceMain).toContain('+b');
    expect(sinceMain).toContain('+changed');
    expect(sinceMain).not.toContain('main-later.txt');
    expect((await git.diff(ws, 'main')).text).toBe(sinceMain);

    const task = (await git.diffAgainstDefault(ws, 'work', 'main')).text;
    expect(task).toContain('b.txt');
    expect(task).not.toContain('+changed'); // committed work only
    expect(await git.diffStatsAgainstDefault(ws, 'work', 'main')).toEqual({
      files: [{ path: 'b.txt', added: 1, removed: 0 }],
      insertions: 1,
      deletions: 0,
    });
    expect(await git.changedFiles(ws, 'main')).toEqual(['app.txt', 'b.txt', 'untracked.txt']);
    await expect(git.diff(ws, { base: 'ghost' })).rejects.toThrow("Branch 'ghost' not found.");
    await expect(git.diffAgainstDefault(ws, 'ghost', 'main')).rejects.toThrow("Branch 'ghost' not found.");
  });

  it('reads the first 4 MB of a large diff in whole lines, counts all of it, and refuses output past 64 MB', async () => {
    await git.createBranch(ws, 'big');
    // 6 MB of numbered lines, a renamed file and a binary one.
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${String(i).padStart(6, '0')} of a generated fixture`);
    await commitFile(ws, 'fixture.txt', `${lines.join('\n')}\n`);
    await gitOut(ws, 'mv', 'keep.txt', 'kept.txt');
    await writeFile(path.join(ws, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255]));
    await gitOut(ws, 'add', '-A');
    await gitOut(ws, 'commit', '-q', '-m', 'rename and binary');

    const read = await git.diffAgainstDefault(ws, 'big', 'main');
    expect(read.cut).toBe(true);
    expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(DIFF_READ_BYTES);
    expect(Buffer.byteLength(read.text)).toBeGreaterThan(DIFF_READ_BYTES - 100);
    expect(read.text.endsWith(' of a generated fixture\n')).toBe(true);
    const stats = await git.diffStatsAgainstDefault(ws, 'big', 'main');
    expect(stats.files).toEqual(
      expect.arrayContaining([
        { path: 'fixture.txt', added: 200_000, removed: 0 },
        { path: 'kept.txt', added: 0, removed: 0 },
        { path: 'blob.bin', added: 0, removed: 0 },
      ]),
    );
    expect(stats).toMatchObject({ insertions: 200_000, deletions: 0 });
    expect(stats.files).toHaveLength(3);

    // A read with no limit of its own stops at 64 MB, with a sentence, instead of filling memory.
    await writeFile(path.join(ws, 'huge.txt'), Buffer.alloc(OUTPUT_LIMIT_BYTES + 1, 'a'));
    const blob = (await gitOut(ws, 'hash-object', '-w', 'huge.txt')).trim();
    await expect(git.run(ws, ['cat-file', 'blob', blob])).rejects.toThrow('git cat-file printed more than 64 MB, more than the app reads.');
  });

  /** A commit on top of main made in a scratch clone, fetched here; returns its sha. */
  async function commitOnMain(): Promise<string> {
    const other = await cloneWorkspace(origin, path.join(dir, 'later'));
    await commitFile(other, 'main-later.txt', 'later\n');
    await gitOut(other, 'push', 'origin', 'main');
    await gitOut(ws, 'fetch', 'origin');
    return gitOut(ws, 'rev-parse', 'origin/main');
  }

  it('finds remote branches that would conflict, after a fetch, without touching tree or index', async () => {
    await pushBranch(origin, path.join(dir, 's1'), 'feature/conflict', 'app.txt', 'line one\nFEATURE\n');
    await pushBranch(origin, path.join(dir, 's2'), 'feature/fine', 'new.txt', 'fine\n');
    await pushBranch(origin, path.join(dir, 's3'), 'dependabot/npm/x', 'app.txt', 'line one\nBOT\n');
    const main = await cloneWorkspace(origin, path.join(dir, 'm'));
    await commitFile(main, 'app.txt', 'line one\nMAIN\n');
    await commitFile(main, 'keep.txt', 'kept\n');
    await gitOut(main, 'push', 'origin', 'main');
    await writeFile(path.join(ws, 'keep.txt'), 'local edit\n'); // a dirty tree stays as it is
    const before = await snapshot(ws);
    const index = await gitOut(ws, 'ls-files', '--stage');

    // branchConflicts fetches first: ws has not seen any of these branches yet.
    expect(await git.branchConflicts(ws, { defaultBranch: 'main' })).toEqual([
      { branch: 'feature/conflict', conflictingFiles: ['app.txt'], commitsBehindMain: '2' },
    ]);
    expect(await snapshot(ws)).toEqual(before);
    expect(await gitOut(ws, 'ls-files', '--stage')).toBe(index);
    expect(await gitOut(ws, 'rev-parse', '--abbrev-ref', 'origin/HEAD')).toBe('origin/main'); // HEAD was skipped, not scanned
    expect(await findBranchConflicts(git, ws, 'main')).toHaveLength(1);

    // A branch deleted on origin disappears from the scan (fetch --prune).
    await gitOut(origin, 'branch', '-D', 'feature/conflict');
    expect(await git.branchConflicts(ws, { defaultBranch: 'main' })).toEqual([]);
  });

  it('reports an unresolved working-tree conflict from porcelain codes', async () => {
    await conflictingBranches();
    expect(await git.workingTreeConflict(ws)).toEqual({ hasConflict: false, files: [] });
    await expect(gitOut(ws, 'merge', 'left')).rejects.toThrow(); // leave the conflict in place
    expect(await git.workingTreeConflict(ws)).toEqual({ hasConflict: true, files: ['app.txt'] });
    expect(await git.hasConflicts(ws)).toBe(true);
    expect((await git.porcelainStatus(ws)).find((e) => e.path === 'app.txt')?.code).toBe('UU');
    await expect(git.merge(ws, 'left', 'main')).rejects.toThrow('You have uncommitted changes');
  });
});
