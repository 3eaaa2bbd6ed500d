import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { READ_FILE_MAX_BYTES } from '../../../src/commands/files';
import { allowedRoots, validateOpened } from '../../../src/commands/path-validation';
import { openRegularFile } from '../../../src/util/regular-file';
import { runShell } from '../../../src/util/run-shell';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

// The real runShell, watched: the timeout run_command gives it cannot be seen from outside without
// waiting out the 30 s default. (A module's exports are read-only getters, so jest.spyOn cannot wrap them.)
jest.mock('../../../src/util/run-shell', () => {
  const actual = jest.requireActual('../../../src/util/run-shell');
  return { ...actual, runShell: jest.fn(actual.runShell) };
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a process is alive (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync('/proc/self/stat')) {
    if (!existsSync(stat)) return false;
    try {
      return readFileSync(stat, 'utf8').split(') ')[1]?.[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('file commands', () => {
  let rt: TestRuntime;
  let ws: string;
  let outside: string;
  let cleanupOutside: () => Promise<void>;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    ws = (await rt.exec('create_project', { name: 'alpha' })).workspace as string;
    ({ dir: outside, cleanup: cleanupOutside } = await makeTempDir('aq-outside-'));
    await writeFile(path.join(outside, 'secret.txt'), 'secret needle');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await rt.cleanup();
    await cleanupOutside();
  });

  describe('read_file', () => {
    it('reads up to 200 lines by default and appends a truncation notice', async () => {
      await writeFile(path.join(ws, 'long.txt'), Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join('\n'));
      const result = (await rt.exec('read_file', { path: 'alpha/long.txt' })) as { content: string; path: string };
      expect(result.path).toBe(path.join(ws, 'long.txt'));
      const lines = result.content.split('\n');
      expect(lines.slice(0, 200)).toEqual(Array.from({ length: 200 }, (_, i) => `line ${i + 1}`));
      expect(lines.slice(200)).toEqual(['', '[… truncated: showing 200 of 250 lines; pass max_lines to see more]']);
      expect((await rt.exec('read_file', { path: path.join(ws, 'long.txt'), max_lines: 2 })).content).toBe(
        'line 1\nline 2\n\n[… truncated: showing 2 of 250 lines; pass max_lines to see more]',
      );
      expect((await rt.exec('read_file', { path: 'alpha/long.txt', max_lines: '250' })).content).not.toContain('truncated');
      await writeFile(path.join(ws, 'exact.txt'), Array.from({ length: 200 }, () => 'x').join('\n'));
      expect((await rt.exec('read_file', { path: 'alpha/exact.txt' })).content).not.toContain('truncated');
      await writeFile(path.join(ws, 'short.txt'), 'a\nb\n');
      expect(await rt.exec('read_file', { path: 'alpha/short.txt' })).toEqual({ content: 'a\nb', path: path.join(ws, 'short.txt') });
      expect(await rt.exec('read_file', { path: 'alpha/short.txt', max_lines: 0 })).toEqual({
        error: expect.stringContaining('max_lines'),
      });
    });

    it('returns at most 1 MB of lines, and the start of one line longer than that, with CRLF line ends read as lines', async () => {
      await writeFile(path.join(ws, 'crlf.txt'), 'one\r\ntwo\r\n\r\nlast');
      expect((await rt.exec('read_file', { path: 'alpha/crlf.txt' })).content).toBe('one\ntwo\n\nlast');
      // 3,000 lines of 1 KB: the 1 MB holds 1,024 of them (line ends counted), whatever max_lines asks for.
      const kb = (i: number) => `${String(i + 1).padStart(5, '0')} ${'k'.repeat(1017)}`;
      await writeFile(path.join(ws, 'wide.txt'), `${Array.from({ length: 3000 }, (_, i) => kb(i)).join('\n')}\n`);
      const wide = (await rt.exec('read_file', { path: 'alpha/wide.txt', max_lines: 5000 })).content as string;
      const shown = wide.split('\n\n[')[0]!.split('\n');
      expect(shown).toEqual(Array.from({ length: 1024 }, (_, i) => kb(i)));
      expect(wide.endsWith('\n\n[… truncated at 1 MB: showing 1024 of 3000 lines; read_file returns at most 1 MB]')).toBe(true);
      // One minified line of 3 MB whose 1 MB mark falls inside a two-byte character.
      await writeFile(path.join(ws, 'min.js'), `${'a'.repeat(READ_FILE_MAX_BYTES - 1)}é${'b'.repeat(2 * READ_FILE_MAX_BYTES)}\nnext();\n`);
      expect((await rt.exec('read_file', { path: 'alpha/min.js' })).content).toBe(
        `${'a'.repeat(READ_FILE_MAX_BYTES - 1)}\n\n[… truncated at 1 MB inside line 1 of 2; read_file returns at most 1 MB]`,
      );
      expect(spawnSync('mkfifo', [path.join(ws, 'pipe.txt')]).status).toBe(0);
      expect(await rt.exec('read_file', { path: 'alpha/pipe.txt' })).toEqual({
        error: 'alpha/pipe.txt is not a regular file (a device, socket or pipe), so it has no text to show.',
      });
    });

    it('checks again the file it opened: a path that led outside by the time it was opened is refused', async () => {
      // What read_file and the notes commands do after opening: an agent may have swapped a folder of
      // the checked path for a link in between, so the file opened is checked, not the path.
      const allowed = await allowedRoots({ config: rt.config, db: rt.db });
      await writeFile(path.join(ws, 'inside.txt'), 'ok');
      const inside = await openRegularFile(path.join(ws, 'inside.txt'));
      const secret = await openRegularFile(path.join(outside, 'secret.txt'));
      try {
        await expect(validateOpened(allowed, inside!, 'alpha/inside.txt')).resolves.toBeUndefined();
        await expect(validateOpened(allowed, secret!, 'alpha/notes/x.md')).rejects.toThrow(
          'Access denied: alpha/notes/x.md is outside the allowed directories (the workspace directory and linked repositories).',
        );
      } finally {
        await inside?.close();
        await secret?.close();
      }
    });

    it('refuses binary files, missing files, folders and paths outside', async () => {
      await writeFile(path.join(ws, 'bin.dat'), Buffer.concat([Buffer.from('text first '), Buffer.from([0]), Buffer.from('then more')]));
      expect(await rt.exec('read_file', { path: 'alpha/bin.dat' })).toEqual({
        error: 'alpha/bin.dat is a binary file and cannot be shown as text.',
      });
      // A NUL after the first 8 KB is not looked for.
      await writeFile(path.join(ws, 'late-nul.txt'), Buffer.concat([Buffer.alloc(9000, 'a'), Buffer.from([0])]));
      expect(await rt.exec('read_file', { path: 'alpha/late-nul.txt' })).toHaveProperty('content');
      expect(await rt.exec('read_file', { path: 'alpha/missing.txt' })).toEqual({ error: 'File not found: alpha/missing.txt' });
      expect(await rt.exec('read_file', { path: 'alpha' })).toEqual({ error: 'alpha is a directory, not a file. Use list_directory.' });
      expect(await rt.exec('read_file', { path: '../agent-queue.db' })).toEqual({
        error: `Access denied: ${path.join(rt.home, 'agent-queue.db')} is outside the allowed directories (the workspace directory and linked repositories).`,
      });
      expect(await rt.exec('read_file', { path: path.join(outside, 'secret.txt') })).toEqual({
        error: expect.stringContaining('Access denied'),
      });
      await symlink(outside, path.join(ws, 'escape'));
      expect(await rt.exec('read_file', { path: 'alpha/escape/secret.txt' })).toEqual({ error: expect.stringContaining('Access denied') });
    });

    it("reads a linked repo's files outside the workspace directory", async () => {
      await rt.db.repos.create({
        id: 'ext',
        projectId: 'alpha',
        name: 'ext',
        sourceType: 'link',
        url: null,
        sourcePath: outside,
        defaultBranch: 'main',
        checkoutBasePath: null,
      });
      expect(await rt.exec('read_file', { path: path.join(outside, 'secret.txt') })).toEqual({
        content: 'secret needle',
        path: path.join(await realpath(outside), 'secret.txt'),
      });
    });
  });

  describe('run_command', () => {
    it('runs through a shell and returns the exit code and both streams', async () => {
      expect(await rt.exec('run_command', { command: 'echo hi; echo oops >&2; exit 3', working_dir: 'alpha' })).toEqual({
        returncode: 3,
        stdout: 'hi\n',
        stderr: 'oops\n',
      });
      expect(await rt.exec('run_command', { command: 'echo a | tr a b && false || echo "$((6*7))"', working_dir: 'alpha' })).toEqual({
        returncode: 0,
        stdout: 'b\n42\n',
        stderr: '',
      });
    });

    it('resolves working_dir: absolute, else a project id, else under the workspace directory', async () => {
      await mkdir(path.join(ws, 'sub'));
      expect((await rt.exec('run_command', { command: 'pwd', working_dir: ws })).stdout).toBe(`${ws}\n`);
      expect((await rt.exec('run_command', { command: 'pwd', working_dir: 'alpha' })).stdout).toBe(`${ws}\n`);
      expect((await rt.exec('run_command', { command: 'pwd', working_dir: 'alpha/sub' })).stdout).toBe(`${path.join(ws, 'sub')}\n`);
      // The project's recorded workspace wins over a folder of the same name.
      const elsewhere = path.join(rt.config.workspaceDir, 'moved');
      await mkdir(elsewhere);
      await rt.exec('create_project', { name: 'beta' });
      await rt.db.em().getConnection().execute('update projects set workspace = ? where id = ?', [elsewhere, 'beta']);
      expect((await rt.exec('run_command', { command: 'pwd', working_dir: 'beta' })).stdout).toBe(`${elsewhere}\n`);
    });

    it('truncates stdout to 4000 and stderr to 2000 characters', async () => {
      const big = (await rt.exec('run_command', {
        command: "head -c 9000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2",
        working_dir: 'alpha',
      })) as Record<string, unknown>;
      expect(big).toEqual({ returncode: 0, stdout: 'a'.repeat(4000), stderr: 'b'.repeat(2000) });
    });

    it('uses a 30 second timeout by default and accepts up to 120', async () => {
      const spy = jest.mocked(runShell);
      spy.mockClear();
      await rt.exec('run_command', { command: 'true', working_dir: 'alpha' });
      await rt.exec('run_command', { command: 'true', working_dir: 'alpha', timeout: 120 });
      expect(spy.mock.calls.map(([, options]) => options.timeoutMs)).toEqual([30_000, 120_000]);
      expect(await rt.exec('run_command', { command: 'true', working_dir: 'alpha', timeout: 121 })).toEqual({
        error: expect.stringMatching(/^Field 'timeout' must be at most 120/),
      });
      expect(await rt.exec('run_command', { command: 'true', working_dir: 'alpha', timeout: 0 })).toEqual({
        error: expect.stringContaining('timeout'),
      });
      expect(spy).toHaveBeenCalledTimes(2);
    });

    it('kills the whole process group on timeout and says so', async () => {
      const started = Date.now();
      const result = await rt.exec('run_command', { command: 'sleep 60 & echo $! > child.pid; wait', working_dir: 'alpha', timeout: 1 });
      expect(result).toEqual({ error: 'Command timed out after 1 seconds and was stopped.' });
      expect(Date.now() - started).toBeLessThan(10_000);
      const pid = Number((await readFile(path.join(ws, 'child.pid'), 'utf8')).trim());
      for (let i = 0; i < 40 && alive(pid); i++) await sleep(50);
      expect(alive(pid)).toBe(false);
    });

    it('never blocks the event loop while a command runs', async () => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      try {
        expect(await rt.exec('run_command', { command: 'sleep 0.5', working_dir: 'alpha' })).toEqual({
          returncode: 0,
          stdout: '',
          stderr: '',
        });
      } finally {
        clearInterval(timer);
      }
      expect(ticks).toBeGreaterThanOrEqual(10);
    });

    it('refuses directories outside or missing', async () => {
      expect(await rt.exec('run_command', { command: 'true', working_dir: outside })).toEqual({
        error: expect.stringContaining('Access denied'),
      });
      expect(await rt.exec('run_command', { command: 'true', working_dir: '..' })).toEqual({
        error: expect.stringContaining('Access denied'),
      });
      expect(await rt.exec('run_command', { command: 'true', working_dir: 'nowhere' })).toEqual({ error: 'Directory not found: nowhere' });
      await writeFile(path.join(ws, 'file.txt'), 'x');
      expect(await rt.exec('run_command', { command: 'true', working_dir: 'alpha/file.txt' })).toEqual({
        error: 'Directory not found: alpha/file.txt',
      });
    });

    it('is admin-only for Slack and chat users and needs confirmation from the model', async () => {
      expect(rt.handler.command('run_command')).toMatchObject({ kind: 'admin' });
      const guarded = await makeTestRuntime({ AQ_ADMINS: 'U1' });
      try {
        await guarded.exec('create_project', { name: 'alpha' });
        const args = { command: 'echo ran > ran.txt', working_dir: 'alpha' };
        expect(await guarded.handler.execute('run_command', args, { source: 'slack', userId: 'U2' })).toEqual({
          error: 'Only workspace admins can run run_command. Ask an admin, or have one add your Slack user id to AQ_ADMINS.',
        });
        expect(await guarded.handler.execute('run_command', args, { source: 'slack' })).toHaveProperty('error');
        expect(existsSync(path.join(guarded.config.workspaceDir, 'alpha', 'ran.txt'))).toBe(false);
        expect(await guarded.handler.execute('run_command', args, { source: 'slack', userId: 'U1' })).toEqual({
          returncode: 0,
          stdout: '',
          stderr: '',
        });
        expect(await guarded.handler.execute('run_command', { ...args, command: 'true' }, { source: 'cli' })).toMatchObject({
          returncode: 0,
        });
      } finally {
        await guarded.cleanup();
      }
    });
  });

  describe('search_files', () => {
    beforeEach(async () => {
      await mkdir(path.join(ws, 'src', 'deep'), { recursive: true });
      await writeFile(path.join(ws, 'src', 'a.ts'), Array.from({ length: 80 }, (_, i) => `const needle${i} = ${i};`).join('\n'));
      await writeFile(path.join(ws, 'src', 'deep', 'b.md'), 'nothing here\n-e marks the spot\n');
    });

    it('greps recursively with line numbers, at most 50 matches', async () => {
      const grep = (await rt.exec('search_files', { pattern: 'needle[0-9]+', path: 'alpha' })) as { results: string; mode: string };
      expect(grep.mode).toBe('grep');
      const lines = grep.results.split('\n');
      expect(lines).toHaveLength(50);
      expect(lines[0]).toBe('src/a.ts:1:const needle0 = 0;');
      expect(await rt.exec('search_files', { pattern: 'nothing', path: path.join(ws, 'src') })).toEqual({
        results: 'deep/b.md:1:nothing here',
        mode: 'grep',
      });
      expect(await rt.exec('search_files', { pattern: 'absent', path: 'alpha' })).toEqual({ results: '(no matches)', mode: 'grep' });
    });

    it('passes the pattern as data: no options, no shell', async () => {
      expect(await rt.exec('search_files', { pattern: '-e', path: 'alpha' })).toEqual({
        results: 'src/deep/b.md:2:-e marks the spot',
        mode: 'grep',
      });
      expect(await rt.exec('search_files', { pattern: '$(touch pwned)', path: 'alpha' })).toEqual({
        results: '(no matches)',
        mode: 'grep',
      });
      expect(existsSync(path.join(ws, 'pwned'))).toBe(false);
      expect(await rt.exec('search_files', { pattern: '(', path: 'alpha' })).toEqual({ error: expect.stringMatching(/^Invalid search: /) });
    });

    it('does not follow symlinks out of the workspace, and skips binary files and .git', async () => {
      await symlink(outside, path.join(ws, 'escape'));
      await writeFile(path.join(ws, 'blob.bin'), Buffer.from([110, 101, 101, 100, 108, 101, 0, 1]));
      await mkdir(path.join(ws, '.git'));
      await writeFile(path.join(ws, '.git', 'COMMIT_EDITMSG'), 'needle in git');
      expect(await rt.exec('search_files', { pattern: 'secret needle|needle in git|^needle', path: 'alpha' })).toEqual({
        results: '(no matches)',
        mode: 'grep',
      });
      expect(await rt.exec('search_files', { pattern: 'secret.txt', path: 'alpha', mode: 'find' })).toEqual({
        results: '(no matches)',
        mode: 'find',
      });
    });

    it('finds regular files by name glob', async () => {
      await mkdir(path.join(ws, 'folder.md'));
      await writeFile(path.join(ws, 'top.md'), '');
      expect(await rt.exec('search_files', { pattern: '*.md', path: 'alpha', mode: 'find' })).toEqual({
        results: 'src/deep/b.md\ntop.md',
        mode: 'find',
      });
      expect(await rt.exec('search_files', { pattern: 'src/*.ts', path: 'alpha', mode: 'find' })).toEqual({
        results: 'src/a.ts',
        mode: 'find',
      });
      expect(await rt.exec('search_files', { pattern: '*.py', path: 'alpha', mode: 'find' })).toEqual({
        results: '(no matches)',
        mode: 'find',
      });
      expect(await rt.exec('search_files', { pattern: '*', path: 'alpha', mode: 'other' })).toEqual({
        error: expect.stringContaining('mode'),
      });
    });

    it('truncates the output to 4000 characters in both modes', async () => {
      await writeFile(path.join(ws, 'wide.txt'), Array.from({ length: 40 }, () => `needle ${'x'.repeat(200)}`).join('\n'));
      expect(((await rt.exec('search_files', { pattern: 'needle ', path: 'alpha' })) as { results: string }).results).toHaveLength(4000);
      await mkdir(path.join(ws, 'many'));
      for (let i = 0; i < 120; i++) await writeFile(path.join(ws, 'many', `file-with-a-long-name-number-${i}.log`), '');
      expect(
        ((await rt.exec('search_files', { pattern: '*.log', path: 'alpha', mode: 'find' })) as { results: string }).results,
      ).toHaveLength(4000);
    });

    it('shows the start of a match on a line of megabytes, and stops a find after 10,000 files, saying so', async () => {
      await mkdir(path.join(ws, 'dist'));
      await writeFile(path.join(ws, 'dist', 'bundle.min.js'), `${'a'.repeat(3_000_000)}needle${'b'.repeat(3_000_000)}\nneedle again\n`);
      const grep = (await rt.exec('search_files', { pattern: 'needle', path: 'alpha/dist' })) as { results: string };
      // The line's true start (never its start joined to its end), then the next match.
      expect(grep.results).toBe(`bundle.min.js:1:${'a'.repeat(3982)}\nbundle.min.js:2:needle again`.slice(0, 4000));
      await mkdir(path.join(ws, 'logs'));
      expect(spawnSync('sh', ['-c', 'seq 10050 | sed "s/.*/run-&.log/" | xargs touch'], { cwd: path.join(ws, 'logs') }).status).toBe(0);
      const found = (await rt.exec('search_files', { pattern: '*.log', path: 'alpha/logs', mode: 'find' })) as { results: string };
      expect(found.results.split('\n')[0]).toBe(
        '(stopped after 10000 matching files, sorted below among those found; narrow the pattern or the path to see them all)',
      );
      expect(found.results.split('\n')[1]).toMatch(/^run-\d+\.log$/);
    });

    it('refuses folders outside or missing', async () => {
      expect(await rt.exec('search_files', { pattern: 'x', path: outside })).toEqual({ error: expect.stringContaining('Access denied') });
      expect(await rt.exec('search_files', { pattern: 'x', path: 'alpha/escape-nowhere' })).toEqual({
        error: 'Directory not found: alpha/escape-nowhere',
      });
    });
  });

  describe('list_directory', () => {
    const addWorkspace = (id: string, name: string, wsPath: string) =>
      rt.db.workspaces.create({ id, projectId: 'alpha', name, path: wsPath, sourceType: 'link', repoId: null });

    it('lists the first workspace of the active project: sorted folders, then files with sizes', async () => {
      await addWorkspace('w1', 'main', ws);
      await mkdir(path.join(ws, 'src'));
      await mkdir(path.join(ws, 'Docs'));
      await writeFile(path.join(ws, 'README.md'), 'hello');
      await writeFile(path.join(ws, 'a.txt'), '12');
      await symlink(path.join(ws, 'src'), path.join(ws, 'src-link'));
      rt.handler.activeProjectId = 'alpha';
      expect(await rt.exec('list_directory')).toEqual({
        project_id: 'alpha',
        path: '/',
        workspace_path: ws,
        workspace_name: 'main',
        directories: ['Docs', 'src', 'src-link'],
        files: [
          { name: 'README.md', size: 5 },
          { name: 'a.txt', size: 2 },
        ],
        total: 5,
        next_offset: null,
      });
      // Pages run over the entries in name order, folders and files alike.
      expect(await rt.exec('list_directory', { limit: 2, offset: 2 })).toMatchObject({
        directories: ['src'],
        files: [{ name: 'a.txt', size: 2 }],
        total: 5,
        next_offset: 4,
      });
      expect(await rt.exec('list_directory', { limit: 2, offset: 4 })).toMatchObject({
        directories: ['src-link'],
        files: [],
        next_offset: null,
      });
      expect(await rt.exec('list_directory', { project_id: 'alpha', path: 'src' })).toMatchObject({
        path: 'src',
        directories: [],
        files: [],
      });
      expect(await rt.exec('list_directory', { path: '/' })).toMatchObject({ path: '/' });
    });

    it('finds a workspace by name, then by id, and resolves its real path', async () => {
      const real = path.join(ws, 'checkout');
      await mkdir(path.join(real, 'inner'), { recursive: true });
      await symlink(real, path.join(ws, 'checkout-link'));
      await addWorkspace('w1', 'main', ws);
      await addWorkspace('w2', 'second', path.join(ws, 'checkout-link'));
      expect(await rt.exec('list_directory', { project_id: 'alpha', workspace: 'second' })).toMatchObject({
        workspace_name: 'second',
        workspace_path: real,
        directories: ['inner'],
      });
      expect(await rt.exec('list_directory', { project_id: 'alpha', workspace: 'w2' })).toMatchObject({ workspace_name: 'second' });
    });

    it('reports each error the spec lists', async () => {
      expect(await rt.exec('list_directory')).toEqual({
        error: 'No project given and no active project set. Pass project_id, or run set_active_project first.',
      });
      expect(await rt.exec('list_directory', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
      expect(await rt.exec('list_directory', { project_id: 'alpha' })).toEqual({
        error: "Project 'alpha' has no workspaces. Add one with /aq add_workspace.",
      });
      await addWorkspace('w1', 'main', ws);
      expect(await rt.exec('list_directory', { project_id: 'alpha', workspace: 'other' })).toEqual({
        error: "Workspace 'other' not found in project 'alpha'.",
      });
      expect(await rt.exec('list_directory', { project_id: 'alpha', path: '../..' })).toEqual({
        error: expect.stringContaining('Access denied'),
      });
      await mkdir(path.join(ws, '..', 'beta-sibling'));
      expect(await rt.exec('list_directory', { project_id: 'alpha', path: '../beta-sibling' })).toEqual({
        error: 'Access denied: ../beta-sibling is outside the workspace.',
      });
      await symlink(outside, path.join(ws, 'escape'));
      expect(await rt.exec('list_directory', { project_id: 'alpha', path: 'escape' })).toEqual({
        error: expect.stringContaining('Access denied'),
      });
      expect(await rt.exec('list_directory', { project_id: 'alpha', path: 'missing' })).toEqual({ error: 'Directory not found: missing' });
      await writeFile(path.join(ws, 'file.txt'), 'x');
      expect(await rt.exec('list_directory', { project_id: 'alpha', path: 'file.txt' })).toEqual({
        error: 'Directory not found: file.txt',
      });
    });
  });
});
