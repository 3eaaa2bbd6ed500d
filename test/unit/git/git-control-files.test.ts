import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gitControlPaths, isInsideGitFolder, plantedAlternates, plantedCommonDir } from '../../../src/git/git-control-files';
import { makeTempDir } from '../../support/tmp';

describe("git's control files in a workspace", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let repo: string;
  beforeEach(async () => {
    tmp = await makeTempDir('aq-git-control-');
    repo = path.join(tmp.dir, 'repo');
    await mkdir(path.join(repo, '.git', 'hooks'), { recursive: true });
    await writeFile(path.join(repo, '.git', 'config'), '[core]\n');
  });
  afterEach(() => tmp.cleanup());

  it('names any path in a .git folder, or the .git file, and nothing else', () => {
    for (const inside of ['.git', '.git/config', '.git/hooks/post-commit', 'vendor/lib/.git/config'])
      expect(isInsideGitFolder(inside)).toBe(true);
    for (const outside of ['.gitignore', '.github/workflows/ci.yml', 'src/git/config', 'a.git/config', '']) {
      expect(isInsideGitFolder(outside)).toBe(false);
    }
  });

  it('lists the existing settings and hooks of a .git folder, the .git file of a linked worktree, and none outside a repository', async () => {
    expect(gitControlPaths(repo)).toEqual([path.join(repo, '.git', 'config'), path.join(repo, '.git', 'hooks')]);
    const worktree = path.join(tmp.dir, 'worktree');
    await mkdir(worktree);
    await writeFile(path.join(worktree, '.git'), `gitdir: ${path.join(repo, '.git', 'worktrees', 'w')}\n`);
    expect(gitControlPaths(worktree)).toEqual([path.join(worktree, '.git')]);
    expect(gitControlPaths(tmp.dir)).toEqual([]);
  });

  it('finds a commondir pointing elsewhere, and accepts none or one naming the folder itself', async () => {
    const file = path.join(repo, '.git', 'commondir');
    expect(plantedCommonDir(repo)).toBeNull();
    for (const itself of ['.', './', path.join(repo, '.git')]) {
      await writeFile(file, `${itself}\n`);
      expect(plantedCommonDir(repo)).toBeNull();
    }
    for (const elsewhere of ['..', tmp.dir, '../../other/.git']) {
      await writeFile(file, `${elsewhere}\n`);
      expect(plantedCommonDir(repo)).toBe(file);
    }
    expect(plantedCommonDir(tmp.dir)).toBeNull();
  });

  it('takes a pipe or a folder planted as commondir for planted, at once (a pipe would hold the process)', async () => {
    const file = path.join(repo, '.git', 'commondir');
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(plantedCommonDir(repo)).toBe(file);
    await rm(file);
    await mkdir(file);
    expect(plantedCommonDir(repo)).toBe(file);
  });

  it('finds an alternates file that names any folder, and accepts none or an empty one', async () => {
    const info = path.join(repo, '.git', 'objects', 'info');
    const file = path.join(info, 'alternates');
    expect(plantedAlternates(repo)).toBeNull();
    await mkdir(info, { recursive: true });
    expect(plantedAlternates(repo)).toBeNull();
    for (const nothing of ['', '\n', '  \n\n']) {
      await writeFile(file, nothing);
      expect(plantedAlternates(repo)).toBeNull();
    }
    for (const named of ['../../../other/.git/objects\n', `${tmp.dir}\n`, `${'\n'.repeat(5000)}/far/objects`, '# a comment\n']) {
      await writeFile(file, named);
      expect(plantedAlternates(repo)).toBe(file);
    }
    await rm(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(plantedAlternates(repo)).toBe(file);
    expect(plantedAlternates(tmp.dir)).toBeNull();
  });
});
