import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { Actor } from '../../../src/commands/catalog';
import { createOriginRepo } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

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
});
