import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { createPullRequest } from '../../../src/git/pull-requests';
import { cloneWorkspace, createOriginRepo } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

describe('GitManager: pull requests through gh, and a free event loop', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let ws: string;
  const pr = { title: '-T: a title', body: 'Body\nwith lines', branch: 'feature', base: 'main' };

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-pr-'));
    ws = await cloneWorkspace(await createOriginRepo(dir), path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  it('says how to fix it when gh is not installed (the real situation on this machine)', async () => {
    const git = new GitManager({ env: { ...process.env, PATH: path.join(dir, 'empty-bin') } });
    await expect(git.createPullRequest(ws, pr)).rejects.toThrow(
      'The GitHub CLI (gh) is not installed; install it and run `gh auth login` to open pull requests.',
    );
  });

  it('runs gh pr create with the arguments as an array and returns the last URL printed', async () => {
    const fakeGh = path.join(dir, 'gh');
    const argsLog = path.join(dir, 'gh-args.txt');
    // A test double of the external program: logs each argument on its own line.
    await writeFile(
      fakeGh,
      `#!/bin/sh\nfor a in "$@"; do printf '%s|' "$a" >> "${argsLog}"; done\necho >> "${argsLog}"\n` +
        `if [ "$1" = auth ]; then exit \${GH_AUTH_EXIT:-0}; fi\necho "Creating pull request https://github.com/o/r/tree/feature"\necho "https://github.com/o/r/pull/7"\n`,
    );
    await chmod(fakeGh, 0o755);
    const git = new GitManager({ ghPath: fakeGh });
    expect(await git.createPullRequest(ws, pr)).toBe('https://github.com/o/r/pull/7');
    expect((await readFile(argsLog, 'utf8')).split('\n')).toEqual(
      ['auth|status|', 'pr|create|--title=-T: a title|--body=Body\nwith lines|--head=feature|--base=main|', ''].join('\n').split('\n'),
    );

    const loggedOut = new GitManager({ ghPath: fakeGh, env: { ...process.env, GH_AUTH_EXIT: '1' } });
    await expect(loggedOut.createPullRequest(ws, pr)).rejects.toThrow(
      'The GitHub CLI (gh) is not logged in; run `gh auth login` on the machine running Agent Queue.',
    );
    await expect(createPullRequest(fakeGh, ws, { ...pr, branch: '--repo=evil' })).rejects.toThrow(/^Invalid branch name/);
  });

  it('keeps the event loop turning while git clones a repository of a few hundred files', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`dir${i % 10}/file${i}.txt`] = `content ${i}\n`.repeat(20);
    await mkdir(path.join(dir, 'big'));
    const big = await createOriginRepo(path.join(dir, 'big'), { files, defaultBranch: 'trunk' });
    const git = new GitManager();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await git.clone(big, path.join(dir, 'big-clone'));
      await git.statusText(path.join(dir, 'big-clone'));
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
    expect(await git.currentBranch(path.join(dir, 'big-clone'))).toBe('trunk');
  });
});
