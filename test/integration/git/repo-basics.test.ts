import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assertValidBranchName, branchNameForTask, isValidBranchName } from '../../../src/git/branch-names';
import { GitError } from '../../../src/git/git-errors';
import { GitManager } from '../../../src/git/git-manager';
import { refsPresent } from '../../../src/git/repo-state';
import { systemClock } from '../../../src/util/clock';
import { bareGitEnv, cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { makeTempDir } from '../../support/tmp';

/**
 * A GitError whose message is one short line, with no stack trace or git dump in it. Short but for
 * the paths it names: how long those are is the machine's temp folder's doing.
 */
async function oneLineError(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GitError);
  const message = (err as Error).message;
  expect(message).not.toMatch(/\n|\s at /);
  expect(message.replaceAll(os.tmpdir(), '<tmp>').length).toBeLessThan(200);
  return message;
}

describe('GitManager: repositories, status, branches and commits', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let origin: string;
  let ws: string;
  const git = new GitManager();

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-git-basics-'));
    origin = await createOriginRepo(dir, { files: { 'app.txt': 'line one\nline two\n' } });
    ws = await cloneWorkspace(origin, path.join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  it('tells a missing directory, a plain directory and a folder inside a repository apart', async () => {
    const missing = path.join(dir, 'nope');
    expect(await oneLineError(git.assertRepo(missing))).toBe(`Directory not found: ${missing}`);
    await mkdir(path.join(dir, 'plain'));
    expect(await oneLineError(git.assertRepo(path.join(dir, 'plain')))).toBe(`Not a git repository: ${path.join(dir, 'plain')}`);
    await mkdir(path.join(ws, 'sub'));
    expect(await git.isRepo(path.join(ws, 'sub'))).toBe(false);
    expect(await git.isRepo(origin)).toBe(false); // bare: no working tree to work in
    await expect(git.assertRepo(ws)).resolves.toBeUndefined();
    expect(await oneLineError(git.currentBranch(missing))).toBe(`Directory not found: ${missing}`);
    expect(await oneLineError(git.statusText(path.join(dir, 'plain')))).toBe(`Not a git repository: ${path.join(dir, 'plain')}`);
  });

  it('waits for a lock another git process holds for a moment; a lock that stays is an error, not a hang', async () => {
    const lock = path.join(ws, '.git', 'index.lock');
    // The retries wait on this clock: each wait is recorded, and `duringWait` runs in it instead of time passing.
    const waits: number[] = [];
    let duringWait = async () => {};
    const patient = new GitManager({
      clock: {
        ...systemClock,
        async sleep(ms: number) {
          waits.push(ms);
          await duringWait();
        },
      },
    });

    // Another git process holds the index, as the agent's own git calls can at the end of a run,
    // and lets go while the commit waits its first turn.
    await writeFile(path.join(ws, 'new.txt'), 'new\n');
    await writeFile(lock, '');
    duringWait = () => rm(lock);
    expect(await patient.commitAll(ws, 'Add new.txt')).toMatchObject({ committed: true });
    expect(waits).toEqual([50]);
    expect(await gitOut(ws, 'log', '-1', '--format=%s')).toBe('Add new.txt');

    // A lock left by a crashed git never goes: after every wait (about 3 s in all), the step fails and says why.
    waits.length = 0;
    duringWait = async () => {};
    await writeFile(path.join(ws, 'more.txt'), 'more\n');
    await writeFile(lock, '');
    expect(await oneLineError(patient.commitAll(ws, 'Add more.txt'))).toMatch(/^Unable to create '.*index\.lock': File exists/);
    expect(waits).toEqual([50, 100, 200, 400, 800, 1500]);
    expect(await gitOut(ws, 'log', '-1', '--format=%s')).toBe('Add new.txt');
  });

  it('reads branches, status, log and commits; a detached HEAD has no branch', async () => {
    expect(await git.currentBranch(ws)).toBe('main');
    expect(await git.detectDefaultBranch(ws)).toBe('main');
    expect(await git.getRemoteUrl(ws)).toBe(origin);
    expect(await git.getRemoteUrl(ws, 'upstream')).toBeNull();
    expect(await git.statusText(ws)).toBe('');
    expect(await git.hasUncommittedChanges(ws)).toBe(false);

    await commitFile(ws, 'old.txt', 'o\n');
    await writeFile(path.join(ws, 'new file.txt'), 'x');
    await writeFile(path.join(ws, 'app.txt'), 'changed\n');
    await rename(path.join(ws, 'old.txt'), path.join(ws, 'renamed.txt'));
    await gitOut(ws, 'add', '-A', 'old.txt', 'renamed.txt');
    expect(await git.statusText(ws)).toBe(' M app.txt\nR  old.txt -> renamed.txt\n?? "new file.txt"');
    expect(await git.porcelainStatus(ws)).toEqual([
      { code: ' M', x: ' ', y: 'M', path: 'app.txt' },
      { code: 'R ', x: 'R', y: ' ', path: 'renamed.txt', origPath: 'old.txt' },
      { code: '??', x: '?', y: '?', path: 'new file.txt' },
    ]);
    expect(await git.hasUncommittedChanges(ws)).toBe(true);
    expect(await git.hasConflicts(ws)).toBe(false);

    expect(await git.log(ws, 5)).toEqual([
      expect.stringMatching(/^[0-9a-f]+ edit old\.txt$/),
      expect.stringMatching(/^[0-9a-f]+ Initial commit$/),
    ]);
    expect(await git.log(ws, 1)).toHaveLength(1);
    const [latest] = await git.recentCommits(ws, 1);
    expect(latest).toEqual({
      sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      shortSha: expect.any(String),
      author: 'Test User',
      date: expect.any(String),
      subject: 'edit old.txt',
    });

    expect(await git.listBranches(ws)).toEqual({ current: 'main', branches: ['main'] });
    await gitOut(ws, 'checkout', '--detach');
    expect(await git.currentBranch(ws)).toBeNull();
    expect((await git.listBranches(ws)).current).toBeNull();
  });

  it('tells in one call which refs exist and which one HEAD is on, exact names only', async () => {
    await gitOut(ws, 'branch', 'task/x');
    // `refs/heads/task` as a pattern also lists refs/heads/task/x, which is not the ref asked for.
    const refs = ['refs/heads/main', 'refs/remotes/origin/main', 'refs/heads/task', 'refs/remotes/origin/gone'];
    expect(await refsPresent(git, ws, refs)).toEqual({
      present: new Set(['refs/heads/main', 'refs/remotes/origin/main']),
      checkedOut: 'refs/heads/main',
    });
    await gitOut(ws, 'checkout', '-q', 'task/x');
    expect((await refsPresent(git, ws, ['refs/heads/main'])).checkedOut).toBeNull();
    await gitOut(ws, 'checkout', '-q', '--detach', 'main');
    expect(await refsPresent(git, ws, ['refs/heads/main'])).toEqual({ present: new Set(['refs/heads/main']), checkedOut: null });
    // A branch without commits is not a ref yet: callers ask HEAD itself then.
    await gitOut(ws, 'checkout', '-q', '--orphan', 'fresh');
    expect(await refsPresent(git, ws, ['refs/heads/fresh'])).toEqual({ present: new Set(), checkedOut: null });
    expect(await git.currentBranch(ws)).toBe('fresh');
  });

  it('detects the default branch without origin/HEAD: main or master, else the current branch', async () => {
    const master = path.join(dir, 'm');
    await gitOut(dir, 'init', '-b', 'master', master);
    await gitOut(master, 'config', 'user.name', 'T');
    await gitOut(master, 'config', 'user.email', 't@example.com');
    await commitFile(master, 'a', 'a', 'first');
    expect(await git.detectDefaultBranch(master)).toBe('master');
    await gitOut(master, 'branch', '-m', 'trunk');
    expect(await git.detectDefaultBranch(master)).toBe('trunk');
  });

  it('init makes a repository with an initial commit, even with no git identity anywhere', async () => {
    const home = path.join(dir, 'home');
    await mkdir(home);
    const bare = new GitManager({ env: bareGitEnv(home) });
    const repo = path.join(dir, 'fresh', 'repo');
    await bare.init(repo, { defaultBranch: 'trunk' });
    expect(await bare.currentBranch(repo)).toBe('trunk');
    expect(await bare.log(repo, 5)).toEqual([expect.stringMatching(/ Initial commit$/)]);
    expect(await gitOut(repo, 'log', '-1', '--format=%an <%ae>')).toBe('Agent Queue <agent-queue@localhost>');
    await bare.createBranch(repo, 'feature');
    await writeFile(path.join(repo, 'a.txt'), 'a');
    expect(await bare.commitAll(repo, 'add a')).toEqual({ committed: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(await bare.commitAll(repo, 'again')).toEqual({ committed: false });
    await bare.init(repo, 'trunk'); // again: no second initial commit
    expect(await bare.log(repo, 5, 'trunk')).toHaveLength(1);
  });

  it('fills in only the part of the identity a repository lacks, and keeps the one it has', async () => {
    const home = path.join(dir, 'home');
    await mkdir(home);
    const bare = new GitManager({ env: bareGitEnv(home) });
    const repo = path.join(dir, 'named');
    await bare.init(repo);
    expect(await bare.identityArgs(repo)).toEqual(['-c', 'user.name=Agent Queue', '-c', 'user.email=agent-queue@localhost']);
    await gitOut(repo, 'config', 'user.name', 'Ada Lovelace');
    expect(await bare.identityArgs(repo)).toEqual(['-c', 'user.email=agent-queue@localhost']);
    await gitOut(repo, 'config', 'user.email', 'ada@example.com');
    expect(await bare.identityArgs(repo)).toEqual([]);
    await writeFile(path.join(repo, 'b.txt'), 'b');
    await bare.commitAll(repo, 'add b');
    expect(await gitOut(repo, 'log', '-1', '--format=%an <%ae>')).toBe('Ada Lovelace <ada@example.com>');
  });

  it('clones, a chosen branch too, and says in one line why a clone failed', async () => {
    await gitOut(ws, 'checkout', '-b', 'dev');
    await commitFile(ws, 'dev.txt', 'dev\n');
    await gitOut(ws, 'push', 'origin', 'dev');
    const copy = path.join(dir, 'deep', 'copy');
    await git.clone(origin, copy, { branch: 'dev' });
    expect(await git.currentBranch(copy)).toBe('dev');
    const message = await oneLineError(git.clone(path.join(dir, 'no-such-origin'), path.join(dir, 'c2')));
    expect(message).toMatch(/^Could not clone .*no-such-origin: /);
    expect(await oneLineError(git.clone('--upload-pack=touch x', path.join(dir, 'c3')))).toMatch(/^A repository URL cannot start with "-"/);
    expect(await oneLineError(git.clone(origin, copy))).toMatch(/already exists and is not an empty directory/);
  });

  it('creates, checks out and deletes branches with short, specific errors', async () => {
    await git.createBranch(ws, 'feature/x');
    expect(await git.currentBranch(ws)).toBe('feature/x');
    await git.createBranch(ws, 'side', { checkout: false, startPoint: 'origin/main' });
    expect(await git.currentBranch(ws)).toBe('feature/x');
    expect(await oneLineError(git.createBranch(ws, 'feature/x'))).toBe("Branch 'feature/x' already exists.");
    expect(await oneLineError(git.createBranch(ws, 'y', { startPoint: 'nowhere' }))).toBe("Start point 'nowhere' not found.");
    expect(await oneLineError(git.checkout(ws, 'nope'))).toBe("Branch 'nope' not found.");
    expect(await oneLineError(git.deleteBranch(ws, 'nope'))).toBe("Branch 'nope' not found.");

    await commitFile(ws, 'app.txt', 'feature\n');
    await writeFile(path.join(ws, 'app.txt'), 'dirty\n');
    expect(await oneLineError(git.checkout(ws, 'main'))).toBe(
      'You have uncommitted changes that would be overwritten; commit or stash them first',
    );
    await gitOut(ws, 'checkout', '--', 'app.txt');
    await git.checkout(ws, 'main');
    expect(await oneLineError(git.deleteBranch(ws, 'feature/x'))).toMatch(/not fully merged/);
    await git.deleteBranch(ws, 'feature/x', { force: true });
    expect((await git.listBranches(ws)).branches).toEqual(['main', 'side']);
  });

  it('refuses bad branch, ref and remote names before git ever runs', async () => {
    const marker = path.join(dir, 'pwned');
    const bad = [
      `--upload-pack=touch ${marker}`,
      'a..b',
      '-x',
      'has space',
      'x.lock',
      '',
      'HEAD',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[b',
      'a\\b',
      'a@{1}',
      '/a',
      'a/',
      'a.',
      '.a',
      'a//b',
      'tab\there',
    ];
    for (const name of bad) {
      expect(isValidBranchName(name)).toBe(false);
      expect(await oneLineError(git.createBranch(ws, name))).toMatch(/^Invalid branch name/);
      await expect(git.checkout(ws, name)).rejects.toThrow(/^Invalid branch name/);
      await expect(git.push(ws, name)).rejects.toThrow(/^Invalid branch name/);
      if (name !== 'HEAD') await expect(git.merge(ws, name, 'main')).rejects.toThrow(/^Invalid ref/);
    }
    await expect(git.getRemoteUrl(ws, `--upload-pack=touch ${marker}`)).rejects.toThrow(/^Invalid remote name/);
    await expect(git.fetch(ws, { remote: '-x' })).rejects.toThrow(/^Invalid remote name/);
    await expect(git.createBranch(ws, 'ok', { startPoint: '--orphan' })).rejects.toThrow(/^Invalid ref/);
    await expect(git.diff(ws, { base: '--output=/tmp/x' })).rejects.toThrow(/^Invalid ref/);
    await expect(stat(marker)).rejects.toThrow();
    for (const good of ['ok/name-1', 'feature/JIRA-12_fix', 'v1.2', 'a@b']) expect(() => assertValidBranchName(good)).not.toThrow();
  });

  it('names task branches <task-id>/<slug> as valid refs of bounded length', () => {
    expect(branchNameForTask('swift-fox-042', 'Add the Login page!')).toBe('swift-fox-042/add-the-login-page');
    expect(branchNameForTask('t-1', 'Café über naïve — résumé')).toBe('t-1/cafe-uber-naive-resume');
    const long = branchNameForTask('t-2', `${'x'.repeat(30)} ${'y'.repeat(30)}`);
    expect(long.length).toBeLessThanOrEqual('t-2/'.length + 40);
    expect(long).not.toMatch(/-$/);
    expect(branchNameForTask('t-3', '***')).toBe('t-3');
    expect(branchNameForTask('T 4..x', '.lock')).toBe('t-4.x/lock');
    expect(new GitManager().branchNameForTask('a', 'B c')).toBe('a/b-c');
  });
});
