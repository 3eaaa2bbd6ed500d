import { existsSync } from 'node:fs';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Actor } from '../../../src/commands/catalog';
import { cloneWorkspace, createOriginRepo } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const stranger: Actor = { source: 'slack', userId: 'U2' };
const admin: Actor = { source: 'slack', userId: 'U1' };

describe('linking folders and the roots file commands may reach', () => {
  let rt: TestRuntime;
  let outside: string;
  let checkout: string;
  let cleanupOutside: () => Promise<void>;
  let ws: string;

  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'U1' });
    ws = (await rt.exec('create_project', { name: 'alpha' })).workspace as string;
    await rt.exec('create_project', { name: 'beta' });
    const out = await makeTempDir('aq-link-out-');
    cleanupOutside = out.cleanup;
    outside = await realpath(out.dir);
    const origin = await createOriginRepo(outside, { files: { 'app.txt': 'linked app\n' } });
    checkout = await cloneWorkspace(origin, path.join(outside, 'checkout'));
  });
  afterEach(async () => {
    await rt.cleanup();
    await cleanupOutside();
  });

  const run = (name: string, args: Record<string, unknown>, actor: Actor = { source: 'cli' }) => rt.handler.executeAny(name, args, actor);

  describe('admins only, for folders outside the workspace directory', () => {
    it('refuses a Slack or chat user outside AQ_ADMINS, and stores nothing', async () => {
      for (const actor of [stranger, { source: 'chat', userId: 'U2' } as Actor, { source: 'slack' } as Actor]) {
        expect(await run('add_repo', { project_id: 'alpha', source: 'link', path: checkout }, actor)).toEqual({
          error: `Only workspace admins can link a folder outside the workspace directory (${checkout}), because file commands can then read it. Ask an admin, or have one add your Slack user id to AQ_ADMINS.`,
        });
        expect(await run('add_workspace', { project_id: 'alpha', source: 'link', path: checkout }, actor)).toEqual({
          error: expect.stringMatching(/^Only workspace admins can link a folder outside the workspace directory/),
        });
      }
      expect(await rt.db.repos.list()).toEqual([]);
      expect(await rt.db.workspaces.list()).toEqual([]);
      expect(await run('read_file', { path: path.join(checkout, 'app.txt') }, stranger)).toEqual({
        error: expect.stringMatching(/^Access denied/),
      });
    });

    it('lets anyone link a folder inside the workspace directory, and other sources stay open', async () => {
      await mkdir(path.join(ws, 'inner'));
      expect(await run('add_repo', { project_id: 'alpha', source: 'link', path: path.join(ws, 'inner') }, stranger)).toMatchObject({
        created: 'inner',
      });
      expect(await run('add_repo', { project_id: 'alpha', source: 'init', name: 'fresh' }, stranger)).toMatchObject({ created: 'fresh' });
    });

    it('lets an admin link an outside checkout, which file commands can then reach', async () => {
      expect(await run('add_workspace', { project_id: 'alpha', name: 'mine', path: checkout }, admin)).toMatchObject({
        created: 'alpha-mine',
        path: checkout,
      });
      expect(await run('list_directory', { project_id: 'alpha', workspace: 'mine' }, stranger)).toMatchObject({
        workspace_path: checkout,
        files: [{ name: 'app.txt', size: 11 }],
      });
      expect(await run('read_file', { path: path.join(checkout, 'app.txt') }, stranger)).toEqual({
        content: 'linked app',
        path: path.join(checkout, 'app.txt'),
      });
      expect(await run('search_files', { pattern: 'linked', path: checkout }, stranger)).toEqual({
        results: 'app.txt:1:linked app',
        mode: 'grep',
      });
      // Only that checkout: its neighbours stay out of reach.
      await writeFile(path.join(outside, 'neighbour.txt'), 'no');
      expect(await run('read_file', { path: path.join(outside, 'neighbour.txt') }, stranger)).toEqual({
        error: expect.stringMatching(/^Access denied/),
      });
      expect(await run('search_files', { pattern: '../*', path: checkout, mode: 'find' }, stranger)).toEqual({
        error: expect.stringMatching(/reaches outside/),
      });
    });
  });

  describe('places never linked', () => {
    const home = os.homedir();
    const refused: Array<[string, () => string, RegExp]> = [
      ['/', () => '/', /it is the root of the file system/],
      ['the home directory', () => home, /it is the home directory/],
      ['a credentials folder in it', () => path.join(home, '.ssh'), /it holds credentials/],
      ['a folder inside that', () => path.join(home, '.aws', 'cli'), /it is inside .*\.aws, which holds credentials/],
      ['/etc', () => '/etc', /it is a system directory/],
      ['inside /usr', () => '/usr/share/doc', /it is inside the system directory \/usr/],
      ['/proc', () => '/proc', /it is a system directory/],
      ['the data folder', () => rt.home, /it is Agent Queue's data folder/],
      ['a folder holding the data folder', () => path.dirname(rt.home), /it holds Agent Queue's data folder \(.*\)/],
    ];

    it.each(refused)('refuses %s with a sentence, for add_repo and add_workspace', async (_label, target, why) => {
      for (const command of ['add_repo', 'add_workspace']) {
        const result = await run(command, { project_id: 'alpha', source: 'link', path: target() }, admin);
        const sentence = `^Cannot link ${escapeRegExp(target())}: ${why.source}, and linking would let file commands read it\\. Link the project's own folder instead\\.$`;
        expect(result).toEqual({ error: expect.stringMatching(new RegExp(sentence)) });
      }
      expect(await rt.db.repos.list()).toEqual([]);
      expect(await rt.db.workspaces.list()).toEqual([]);
    });

    it('judges a symlink by where it leads', async () => {
      await symlink('/etc', path.join(outside, 'etc-link'));
      expect(await run('add_repo', { project_id: 'alpha', source: 'link', path: path.join(outside, 'etc-link') })).toEqual({
        error: `Cannot link ${path.join(outside, 'etc-link')}: it is a system directory, and linking would let file commands read it. Link the project's own folder instead.`,
      });
    });

    it("refuses the database's folder when the database lives outside the data folder", async () => {
      const { dir, cleanup } = await makeTempDir('aq-db-');
      const other = await makeTestRuntime({ DATABASE_URL: `sqlite:${path.join(dir, 'store', 'aq.db')}` });
      try {
        await other.exec('create_project', { name: 'p' });
        for (const target of [path.join(dir, 'store'), dir]) {
          expect(await other.exec('add_repo', { project_id: 'p', source: 'link', path: target })).toEqual({
            error: expect.stringMatching(/^Cannot link .*: it (is|holds) Agent Queue's database folder/),
          });
        }
      } finally {
        await other.cleanup();
        await cleanup();
      }
    });

    it('ignores linked records stored before the rule, so they open nothing', async () => {
      await rt.db.repos.create({
        id: 'old',
        projectId: 'alpha',
        name: 'old',
        sourceType: 'link',
        url: null,
        sourcePath: '/',
        defaultBranch: 'main',
        checkoutBasePath: null,
      });
      await rt.db.workspaces.create({
        id: 'alpha-data',
        projectId: 'alpha',
        name: 'data',
        path: rt.home,
        sourceType: 'link',
        repoId: null,
      });
      await rt.db.workspaces.create({ id: 'alpha-etc', projectId: 'alpha', name: 'etc', path: '/etc', sourceType: 'link', repoId: null });
      expect(await run('read_file', { path: '/etc/hostname' })).toEqual({ error: expect.stringMatching(/^Access denied/) });
      expect(await run('read_file', { path: path.join(rt.home, 'agent-queue.db') })).toEqual({
        error: expect.stringMatching(/^Access denied/),
      });
      for (const workspace of ['data', 'etc']) {
        expect(await run('list_directory', { project_id: 'alpha', workspace })).toEqual({ error: expect.stringMatching(/^Access denied/) });
      }
    });

    it('never reaches the database files, even when the workspace folder holds them', async () => {
      const { dir, cleanup } = await makeTempDir('aq-flat-');
      const flat = await makeTestRuntime({ AQ_HOME: dir, AQ_WORKSPACE_DIR: dir });
      try {
        await writeFile(path.join(dir, 'note.txt'), 'fine');
        expect(await flat.exec('read_file', { path: 'note.txt' })).toMatchObject({ content: 'fine' });
        expect(await flat.exec('read_file', { path: 'agent-queue.db' })).toEqual({ error: expect.stringMatching(/^Access denied/) });
        expect(await flat.exec('search_files', { pattern: 'agent-queue*', path: '.', mode: 'find' })).toEqual({
          results: '(no matches)',
          mode: 'find',
        });
      } finally {
        await flat.cleanup();
        await cleanup();
      }
    });
  });

  describe('listings', () => {
    it('list_directory names a symlink out without telling what it points to', async () => {
      await writeFile(path.join(outside, 'big.txt'), 'x'.repeat(5000));
      await mkdir(path.join(outside, 'folder'));
      await symlink(path.join(outside, 'big.txt'), path.join(ws, 'file-out'));
      await symlink(path.join(outside, 'folder'), path.join(ws, 'dir-out'));
      await writeFile(path.join(ws, 'own.txt'), 'abc');
      await symlink(path.join(ws, 'own.txt'), path.join(ws, 'file-in'));
      await rt.db.workspaces.create({ id: 'alpha-main', projectId: 'alpha', name: 'main', path: ws, sourceType: 'clone', repoId: null });
      expect(await run('list_directory', { project_id: 'alpha' })).toMatchObject({
        directories: [],
        files: [
          { name: 'dir-out', size: 0 },
          { name: 'file-in', size: 3 },
          { name: 'file-out', size: 0 },
          { name: 'own.txt', size: 3 },
        ],
      });
    });

    it('search_files refuses find patterns that leave the folder, with a sentence', async () => {
      await writeFile(path.join(ws, 'a..b.txt'), '');
      for (const pattern of ['../*', '/etc/*', 'src/../../x', '{..,src}/*', '@(..)/*', '~/x']) {
        expect(await run('search_files', { pattern, path: 'alpha', mode: 'find' })).toEqual({
          error: `The pattern ${pattern} reaches outside the folder being searched. Use a glob below it, such as *.ts or src/**/*.md, and give the folder as path.`,
        });
      }
      expect(await run('search_files', { pattern: 'a..b.*', path: 'alpha', mode: 'find' })).toEqual({ results: 'a..b.txt', mode: 'find' });
      // In grep mode the pattern is a regular expression, not a path.
      expect(await run('search_files', { pattern: '../x', path: 'alpha' })).toEqual({ results: '(no matches)', mode: 'grep' });
    });

    it('remove_workspace does not delete through a symlinked folder', async () => {
      await mkdir(path.join(outside, 'victim', 'ws-1'), { recursive: true });
      await writeFile(path.join(outside, 'victim', 'ws-1', 'keep.txt'), 'keep');
      await symlink(path.join(outside, 'victim'), path.join(ws, 'workspaces'));
      await rt.db.workspaces.create({
        id: 'alpha-ws-1',
        projectId: 'alpha',
        name: 'ws-1',
        path: path.join(ws, 'workspaces', 'ws-1'),
        sourceType: 'clone',
        repoId: null,
      });
      expect(await run('remove_workspace', { workspace_id: 'alpha-ws-1', delete_files: true })).toEqual({
        error: expect.stringContaining('linked folders are left alone'),
      });
      expect(existsSync(path.join(outside, 'victim', 'ws-1', 'keep.txt'))).toBe(true);
      // Nor clone into it.
      await rt.exec('add_repo', { project_id: 'alpha', source: 'init', name: 'svc' });
      await rt.db.em().getConnection().execute("update repos set url = checkout_base_path where id = 'svc'");
      expect(await run('add_workspace', { project_id: 'alpha', name: 'ws-2' })).toEqual({ error: expect.stringMatching(/^Access denied/) });
      expect(existsSync(path.join(outside, 'victim', 'ws-2'))).toBe(false);
    });
  });

  describe('references', () => {
    it('add_workspace refuses an unknown repo or one of another project, storing nothing', async () => {
      expect(await run('add_workspace', { project_id: 'alpha', repo_id: 'ghost' })).toEqual({
        error: "Repo 'ghost' not found. List them with /aq list_repos.",
      });
      await run('add_repo', { project_id: 'beta', source: 'init', name: 'beta-repo' });
      expect(await run('add_workspace', { project_id: 'alpha', repo_id: 'beta-repo' })).toEqual({
        error: "Repo 'beta-repo' belongs to project 'beta', not 'alpha'. Pick one of this project's repos.",
      });
      expect(await rt.db.workspaces.list()).toEqual([]);
    });

    it('list_repos checks its project', async () => {
      expect(await run('list_repos', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
      expect(await run('list_repos', { project_id: 'alpha' })).toEqual({ repos: [], total: 0, next_offset: null });
    });
  });
});
