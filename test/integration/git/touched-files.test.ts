import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { baseRef, normalisePath, parseStatusV2, touchedFiles } from '../../../src/git/touched-files';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

describe('touched files of a task workspace (real git)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let ws: string;
  const git = new GitManager();

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-touched-'));
    const origin = await createOriginRepo(dir, { files: { 'README.md': '# r\n', 'src/old name.ts': 'x\n', 'gone.txt': 'g\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  it('counts commits since the base, staged, unstaged, renamed, deleted and untracked paths, once each', async () => {
    await gitOut(ws, 'checkout', '-b', 'task-1');
    await commitFile(ws, 'src/committed.ts', 'c\n');
    await commitFile(ws, 'README.md', '# changed\n');
    // main moves on after the branch left it: its commits are not the task's.
    await gitOut(ws, 'checkout', 'main');
    await commitFile(ws, 'main-only.txt', 'm\n');
    await gitOut(ws, 'push', 'origin', 'main');
    await gitOut(ws, 'checkout', 'task-1');
    await writeFile(path.join(ws, 'README.md'), '# changed again\n');
    await gitOut(ws, 'mv', 'src/old name.ts', 'src/new name.ts');
    await rm(path.join(ws, 'gone.txt'));
    await mkdir(path.join(ws, 'docs/deep'), { recursive: true });
    await writeFile(path.join(ws, 'docs/deep/untracked.md'), 'u\n');

    const base = await baseRef(git, ws, 'main');
    expect(base).toBe('refs/remotes/origin/main');
    const touched = await touchedFiles(git, ws, base);
    expect(touched.files).toEqual([
      'README.md',
      'docs/deep/untracked.md',
      'gone.txt',
      'src/committed.ts',
      'src/new name.ts',
      'src/old name.ts',
    ]);
    expect(touched.head).toBe((await gitOut(ws, 'rev-parse', 'HEAD')).trim());
  });

  it('a clean branch at its base touched nothing; without a base only uncommitted paths count', async () => {
    await gitOut(ws, 'checkout', '-b', 'task-2');
    expect((await touchedFiles(git, ws, 'refs/remotes/origin/main')).files).toEqual([]);
    await commitFile(ws, 'a.ts', 'a\n');
    await writeFile(path.join(ws, 'b.ts'), 'b\n');
    expect((await touchedFiles(git, ws, null)).files).toEqual(['b.ts']);
    expect(await baseRef(git, ws, 'no-such-branch')).toBeNull();
  });

  it('parses porcelain v2 with spaces, renames and conflicts, and normalises paths', () => {
    const out = [
      '# branch.oid 0123456789abcdef0123456789abcdef01234567',
      '# branch.head task',
      '1 .M N... 100644 100644 100644 aaa bbb src/with space.ts',
      '2 R. N... 100644 100644 100644 aaa bbb R100 new.ts',
      'old.ts',
      'u UU N... 100644 100644 100644 100644 aaa bbb ccc both.ts',
      '? ./loose/',
      '',
    ].join('\0');
    const parsed = parseStatusV2(out);
    expect(parsed.head).toBe('0123456789abcdef0123456789abcdef01234567');
    expect(parsed.files).toEqual(['src/with space.ts', 'new.ts', 'old.ts', 'both.ts', './loose/']);
    expect(parseStatusV2('# branch.oid (initial)\0').head).toBeNull();
    expect(normalisePath('./loose/')).toBe('loose');
    expect(normalisePath('a\\b/../c.ts')).toBe('a/c.ts');
  });
});
