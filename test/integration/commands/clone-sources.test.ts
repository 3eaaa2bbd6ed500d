import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { Actor } from '../../../src/commands/catalog';
import { appPrivatePaths } from '../../../src/agents/confinement';
import { gitCredentialsDir } from '../../../src/util/app-home-files';
import { commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { startGitHttpServer } from '../../support/git-http-server';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

const execFileAsync = promisify(execFile);

const stranger: Actor = { source: 'slack', userId: 'U2' };
const strangerViaModel: Actor = { source: 'chat', userId: 'U2' };
const admin: Actor = { source: 'slack', userId: 'U1' };

/** Copying a folder of the host is linking it: who may clone what, checked before git runs. */
describe('clone sources', () => {
  let rt: TestRuntime;
  let origin: string;
  let outside: { dir: string; cleanup: () => Promise<void> };

  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'U1' });
    await rt.exec('create_project', { name: 'alpha' });
    outside = await makeTempDir('aq-clone-out-');
    origin = await createOriginRepo(await realpath(outside.dir), { files: { 'credentials.txt': 'token=abc\n' } });
  });
  afterEach(async () => {
    await rt.cleanup();
    await outside.cleanup();
  });

  const as = (actor: Actor, name: string, args: Record<string, unknown>) => rt.handler.executeAny(name, args, actor);
  const repos = async () => ((await rt.exec('list_repos', {})) as { repos: unknown[] }).repos;

  it('refuses a folder of the host, as a path or file://, to non-admins on every surface, before git runs', async () => {
    for (const actor of [stranger, strangerViaModel]) {
      for (const url of [origin, pathToFileURL(origin).href, path.relative(process.cwd(), origin)]) {
        expect(await as(actor, 'add_repo', { project_id: 'alpha', source: 'clone', url, name: 'copy' })).toEqual({
          error: expect.stringMatching(/^Cannot clone .*: it is a folder of this host\. .*it is for admins \(AQ_ADMINS\)/),
        });
      }
      expect(await as(actor, 'add_workspace', { project_id: 'alpha', source: 'clone', url: origin })).toEqual({
        error: expect.stringContaining('it is a folder of this host'),
      });
      expect(await as(actor, 'add_repo', { project_id: 'alpha', source: 'clone', url: 'http://127.0.0.1:1/r.git' })).toEqual({
        error: expect.stringMatching(/^http:\/\/ is not one of the transports anyone may clone from/),
      });
    }
    expect(await repos()).toEqual([]);
    expect(await rt.exec('list_workspaces', {})).toMatchObject({ workspaces: [] });
    expect(existsSync(path.join(rt.config.workspaceDir, 'alpha', 'copy'))).toBe(false);
  });

  it('never hands ext:: or a "-" value to git, whoever asks', async () => {
    const marker = path.join(outside.dir, 'pwned');
    for (const actor of [admin, { source: 'cli' } as Actor]) {
      for (const url of [`ext::sh -c touch% ${marker}`, '--upload-pack=touch /tmp/x', '-oProxyCommand=x']) {
        const result = await as(actor, 'add_repo', { project_id: 'alpha', source: 'clone', url, name: 'x' });
        expect(result).toEqual({ error: expect.stringMatching(/Remote-helper URLs|cannot start with "-"/) });
      }
    }
    expect(existsSync(marker)).toBe(false);
    await expect(rt.git.clone(`ext::sh -c touch% ${marker}`, path.join(outside.dir, 'x'))).rejects.toThrow(/Remote-helper/);
    expect(existsSync(marker)).toBe(false);
  });

  it('lets an admin clone a folder (stored as its real path), and anyone clone inside the workspace folder', async () => {
    expect(
      await as(admin, 'add_repo', { project_id: 'alpha', source: 'clone', url: pathToFileURL(origin).href, name: 'app' }),
    ).toMatchObject({
      created: 'app',
      source_type: 'clone',
    });
    expect(await repos()).toMatchObject([{ id: 'app', url: origin }]);
    const inside = path.join(rt.config.workspaceDir, 'alpha', 'app');
    expect(await as(stranger, 'add_repo', { project_id: 'alpha', source: 'clone', url: inside, name: 'again' })).toMatchObject({
      created: 'again',
    });
  });

  it('never shows a clone URL credential: not in errors, not in list_repos', async () => {
    const secretUrl = 'https://alice:s3cret-token@127.0.0.1:1/org/app.git';
    const failed = await as(stranger, 'add_repo', { project_id: 'alpha', source: 'clone', url: secretUrl, name: 'remote' });
    expect(failed).toEqual({ error: expect.stringContaining('https://***@127.0.0.1:1/org/app.git') });
    expect(JSON.stringify(failed)).not.toContain('s3cret');
    await rt.db.repos.create({
      id: 'stored',
      projectId: 'alpha',
      name: 'stored',
      sourceType: 'clone',
      url: 'https://ghp_tokenvalue@github.com/org/app.git',
      sourcePath: null,
      defaultBranch: 'main',
      checkoutBasePath: null,
    });
    const listed = JSON.stringify(await as(stranger, 'list_repos', { project_id: 'alpha' }));
    expect(listed).toContain('https://***@github.com/org/app.git');
    expect(listed).not.toContain('ghp_tokenvalue');
  });

  it("keeps a clone URL's credentials out of the clone's settings, fetches and pushes with them, and forgets them with the project", async () => {
    const root = path.dirname(origin);
    const server = await startGitHttpServer(root, 'bot', 's3cret-token');
    try {
      const secretUrl = server.url.replace('http://', 'http://bot:s3cret-token@');
      expect(
        await as(admin, 'add_repo', { project_id: 'alpha', source: 'clone', url: `${secretUrl}/origin.git`, name: 'web' }),
      ).toMatchObject({
        created: 'web',
      });
      const clone = path.join(rt.config.workspaceDir, 'alpha', 'web');
      expect(await readFile(path.join(clone, 'credentials.txt'), 'utf8')).toBe('token=abc\n');
      // Nothing in the clone's folder holds the password; origin is the URL without it.
      const files = (await readdir(path.join(clone, '.git'), { recursive: true })).map((f) => path.join(clone, '.git', f));
      const holding = [];
      for (const f of files) if ((await stat(f)).isFile() && (await readFile(f)).includes('s3cret-token')) holding.push(f);
      expect(files.length).toBeGreaterThan(10);
      expect(holding).toEqual([]);
      expect(await gitOut(clone, 'remote', 'get-url', 'origin')).toBe(`${server.url}/origin.git`);
      // It lies in AQ_HOME, readable by this user alone, where agents cannot read it (appPrivatePaths).
      const [kept] = await readdir(gitCredentialsDir(rt.config.home));
      const file = path.join(gitCredentialsDir(rt.config.home), kept);
      expect((await stat(file)).mode & 0o077).toBe(0);
      expect(appPrivatePaths(rt.config)).toContain(gitCredentialsDir(rt.config.home));

      // The app's own git still authenticates: a push and a fetch through the git layer.
      await commitFile(clone, 'new.txt', 'new\n');
      await rt.git.push(clone, 'main');
      expect(await gitOut(origin, 'show', 'main:new.txt')).toBe('new');
      await rt.git.fetch(clone);
      const basic = `Basic ${Buffer.from('bot:s3cret-token').toString('base64')}`;
      expect(server.authorizations.filter((a) => a === basic).length).toBeGreaterThanOrEqual(3);
      // A git run without the app's helper (as an agent's shell would) is refused by the server.
      const bare = await execFileAsync('git', ['-c', 'credential.helper=', 'ls-remote', `${server.url}/origin.git`], {
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      }).catch((err: { stderr: string }) => err.stderr);
      expect(String(bare)).toMatch(/could not read Username|Authentication failed/);
      expect(existsSync(file)).toBe(true);
      // Linked as a workspace, its origin is the project's repository: no warning that it is not.
      const linked = await as(admin, 'add_workspace', { project_id: 'alpha', source: 'link', path: clone, repo_id: 'web' });
      expect(linked).toMatchObject({ created: expect.any(String) });
      expect(linked).not.toHaveProperty('warning');

      // A workspace cloned with the URL has a credential file of its own, gone with its folder.
      const added = await as(admin, 'add_workspace', { project_id: 'alpha', source: 'clone', url: `${secretUrl}/origin.git` });
      expect(added).toMatchObject({ created: expect.any(String) });
      expect(await readdir(gitCredentialsDir(rt.config.home))).toHaveLength(2);
      const removed = await as(admin, 'remove_workspace', { workspace_id: (added as { created: string }).created, delete_files: true });
      expect(removed).toMatchObject({ files_deleted: true });
      expect(await readdir(gitCredentialsDir(rt.config.home))).toEqual([kept]);

      // Deleting the project forgets the tokens of every clone it made; the folders stay.
      const again = await as(admin, 'add_workspace', { project_id: 'alpha', source: 'clone', url: `${secretUrl}/origin.git` });
      expect(again).toMatchObject({ created: expect.any(String) });
      expect(await readdir(gitCredentialsDir(rt.config.home))).toHaveLength(2);
      expect(await as(admin, 'delete_project', { project_id: 'alpha' })).toMatchObject({ deleted: 'alpha' });
      expect(await readdir(gitCredentialsDir(rt.config.home))).toEqual([]);
      expect(existsSync(path.join(clone, '.git'))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('keeps the credentials of a URL with reserved characters (=, +, @) in its path apart too, and fetches and pushes with them', async () => {
    // The credential setting's key holds the URL: git reads `-c key=value` up to the first "=", and matches the path's reserved characters percent-encoded.
    const team = path.join(outside.dir, 'team=web+ops@2');
    await mkdir(team);
    const teamOrigin = await createOriginRepo(team, { files: { 'team.txt': 'team\n' } });
    const server = await startGitHttpServer(outside.dir, 'bot', 's3cret-token');
    try {
      const url = `${server.url}/team=web+ops@2/origin.git`;
      const added = await as(admin, 'add_repo', {
        project_id: 'alpha',
        source: 'clone',
        url: url.replace('http://', 'http://bot:s3cret-token@'),
        name: 'team',
      });
      expect(added).toMatchObject({ created: 'team' });
      const clone = path.join(rt.config.workspaceDir, 'alpha', 'team');
      expect(await readFile(path.join(clone, 'team.txt'), 'utf8')).toBe('team\n');
      expect(await gitOut(clone, 'remote', 'get-url', 'origin')).toBe(url);
      expect(await readFile(path.join(clone, '.git', 'config'), 'utf8')).not.toContain('s3cret-token');
      // The helper stayed in the clone's settings under the whole URL: the app's git still authenticates.
      await commitFile(clone, 'new.txt', 'new\n');
      await rt.git.push(clone, 'main');
      expect(await gitOut(teamOrigin, 'show', 'main:new.txt')).toBe('new');
      const basic = `Basic ${Buffer.from('bot:s3cret-token').toString('base64')}`;
      expect(server.authorizations.filter((a) => a === basic).length).toBeGreaterThanOrEqual(2);
    } finally {
      await server.close();
    }
  });
});
