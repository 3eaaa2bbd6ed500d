import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

describe('notes', () => {
  let rt: TestRuntime;
  let ws: string;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    ws = (await rt.exec('create_project', { name: 'alpha' })).workspace as string;
  });
  afterEach(() => rt.cleanup());

  it('writes, reads, appends, lists and deletes notes as files', async () => {
    expect(await rt.exec('list_notes', { project_id: 'alpha' })).toEqual({ project_id: 'alpha', notes: [] });
    const file = path.join(ws, 'notes', 'design-ideas.md');
    expect(await rt.exec('write_note', { project_id: 'alpha', title: 'Design Ideas!', content: '# Design Ideas\n\nUse queues.' })).toEqual({
      path: file,
      title: 'Design Ideas!',
      status: 'created',
    });
    expect((await rt.exec('write_note', { project_id: 'alpha', title: 'design ideas', content: '# Design Ideas\n\nUse queues.' })).status).toBe('updated');
    expect(await rt.exec('read_note', { project_id: 'alpha', title: 'Design Ideas' })).toEqual({
      content: '# Design Ideas\n\nUse queues.',
      title: 'Design Ideas',
      path: file,
      size_bytes: 27,
    });
    expect(await rt.exec('append_note', { project_id: 'alpha', title: 'Design Ideas', content: 'And retries.' })).toEqual({
      path: file,
      title: 'Design Ideas',
      status: 'appended',
      size_bytes: 41,
    });
    expect(await rt.exec('append_note', { project_id: 'alpha', title: 'Log', content: 'first' })).toMatchObject({ status: 'created' });
    expect((await rt.exec('read_note', { project_id: 'alpha', title: 'log' })).content).toBe('# Log\n\nfirst');
    await writeFile(path.join(ws, 'notes', 'plain-file.md'), 'no heading');
    const { notes } = (await rt.exec('list_notes', { project_id: 'alpha' })) as { notes: Array<Record<string, unknown>> };
    expect(notes.map((n) => [n.name, n.title])).toEqual([
      ['design-ideas.md', 'Design Ideas'],
      ['log.md', 'Log'],
      ['plain-file.md', 'Plain file'],
    ]);
    expect(notes[0]).toEqual({ name: 'design-ideas.md', title: 'Design Ideas', size_bytes: 41, modified: expect.any(Number), path: file });
    expect(await rt.exec('delete_note', { project_id: 'alpha', title: 'log' })).toEqual({ deleted: path.join(ws, 'notes', 'log.md'), title: 'log' });
    expect(await rt.exec('delete_note', { project_id: 'alpha', title: 'log' })).toEqual({ error: "Note 'log' not found in project 'alpha'." });
    expect(await rt.exec('read_note', { project_id: 'ghost', title: 'x' })).toEqual({ error: "Project 'ghost' not found." });
    const types = (await rt.db.events.recent(20)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['note_created', 'note_updated', 'note_deleted']));
  });

  it('never lets a title escape the notes folder, and refuses titles without letters', async () => {
    const result = await rt.exec('write_note', { project_id: 'alpha', title: '../../etc/passwd', content: 'x' });
    expect(result.path).toBe(path.join(ws, 'notes', 'etc-passwd.md'));
    expect(await rt.exec('write_note', { project_id: 'alpha', title: '../..', content: 'x' })).toEqual({ error: expect.stringContaining('no letters or digits') });
  });

  it('compares specs and notes', async () => {
    await mkdir(path.join(ws, 'specs'));
    await writeFile(path.join(ws, 'specs', 'api.md'), '# API spec\n');
    await rt.exec('write_note', { project_id: 'alpha', title: 'API', content: '# API notes' });
    expect(await rt.exec('compare_specs_notes', { project_id: 'alpha' })).toEqual({
      specs: [{ name: 'api.md', title: 'API spec', size_bytes: 11 }],
      notes: [{ name: 'api.md', title: 'API notes', size_bytes: 11 }],
      specs_path: path.join(ws, 'specs'),
      notes_path: path.join(ws, 'notes'),
      project_id: 'alpha',
    });
    expect(await rt.exec('compare_specs_notes', { project_id: 'alpha', specs_path: '/etc' })).toEqual({ error: expect.stringContaining('Access denied') });
  });
});

describe('files and path validation', () => {
  let rt: TestRuntime;
  let ws: string;
  let outside: { dir: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    rt = await makeTestRuntime();
    ws = (await rt.exec('create_project', { name: 'alpha' })).workspace as string;
    outside = await makeTempDir('aq-outside-');
    await writeFile(path.join(outside.dir, 'secret.txt'), 'secret');
  });
  afterEach(async () => {
    await rt.cleanup();
    await outside.cleanup();
  });

  it('reads text files with a 200-line default and a truncation notice', async () => {
    await writeFile(path.join(ws, 'long.txt'), Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join('\n'));
    const result = (await rt.exec('read_file', { path: 'alpha/long.txt' })) as { content: string; path: string };
    expect(result.path).toBe(path.join(ws, 'long.txt'));
    expect(result.content.split('\n').slice(0, 200).at(-1)).toBe('line 200');
    expect(result.content).toContain('truncated: showing 200 of 250 lines');
    expect((await rt.exec('read_file', { path: path.join(ws, 'long.txt'), max_lines: 2 })).content).toMatch(/^line 1\nline 2\n\n\[… truncated/);
    await writeFile(path.join(ws, 'short.txt'), 'a\nb\n');
    expect((await rt.exec('read_file', { path: 'alpha/short.txt' })).content).toBe('a\nb');
    await writeFile(path.join(ws, 'bin.dat'), Buffer.from([1, 2, 0, 3]));
    expect(await rt.exec('read_file', { path: 'alpha/bin.dat' })).toEqual({ error: expect.stringContaining('binary') });
    expect(await rt.exec('read_file', { path: 'alpha/missing.txt' })).toEqual({ error: 'File not found: alpha/missing.txt' });
  });

  it('denies .., absolute paths outside, outward symlinks and sibling-prefix tricks', async () => {
    expect(await rt.exec('read_file', { path: '../agent-queue.db' })).toEqual({ error: expect.stringContaining('Access denied') });
    expect(await rt.exec('read_file', { path: path.join(outside.dir, 'secret.txt') })).toEqual({ error: expect.stringContaining('Access denied') });
    await symlink(outside.dir, path.join(ws, 'escape'));
    expect(await rt.exec('read_file', { path: 'alpha/escape/secret.txt' })).toEqual({ error: expect.stringContaining('Access denied') });
    expect(await rt.exec('read_file', { path: 'alpha/escape/not-yet.txt' })).toEqual({ error: expect.stringContaining('Access denied') });
    await mkdir(`${rt.config.workspaceDir}-evil`);
    await writeFile(`${rt.config.workspaceDir}-evil/x.txt`, 'evil');
    expect(await rt.exec('read_file', { path: `${rt.config.workspaceDir}-evil/x.txt` })).toEqual({ error: expect.stringContaining('Access denied') });
    await writeFile(path.join(ws, 'real.txt'), 'inside');
    await symlink(path.join(ws, 'real.txt'), path.join(ws, 'link.txt'));
    expect(await rt.exec('read_file', { path: 'alpha/link.txt' })).toMatchObject({ content: 'inside', path: path.join(ws, 'real.txt') });
  });

  it("allows a linked repo's source path outside the workspace directory", async () => {
    await rt.db.repos.create({ id: 'ext', projectId: 'alpha', name: 'ext', sourceType: 'link', url: null, sourcePath: outside.dir, defaultBranch: 'main', checkoutBasePath: null });
    expect(await rt.exec('read_file', { path: path.join(outside.dir, 'secret.txt') })).toMatchObject({ content: 'secret' });
  });

  it('runs commands with exit code, truncated output, timeouts and directory rules', async () => {
    expect(await rt.exec('run_command', { command: 'echo hi; echo oops >&2; exit 3', working_dir: 'alpha' })).toEqual({ returncode: 3, stdout: 'hi\n', stderr: 'oops\n' });
    expect((await rt.exec('run_command', { command: 'pwd', working_dir: ws })).stdout).toBe(`${ws}\n`);
    const big = (await rt.exec('run_command', { command: "head -c 9000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2", working_dir: 'alpha' })) as Record<string, string>;
    expect(big.stdout).toHaveLength(4000);
    expect(big.stderr).toHaveLength(2000);
    expect(await rt.exec('run_command', { command: 'sleep 5', working_dir: 'alpha', timeout: 1 })).toEqual({ error: 'Command timed out after 1 seconds and was stopped.' });
    expect(await rt.exec('run_command', { command: 'true', working_dir: 'alpha', timeout: 121 })).toEqual({ error: expect.stringMatching(/^Field 'timeout' must be at most 120/) });
    expect(await rt.exec('run_command', { command: 'true', working_dir: outside.dir })).toEqual({ error: expect.stringContaining('Access denied') });
    expect(await rt.exec('run_command', { command: 'true', working_dir: 'nowhere' })).toEqual({ error: 'Directory not found: nowhere' });
  });

  it('searches contents (at most 50 matches) and names, within allowed folders', async () => {
    await mkdir(path.join(ws, 'src'));
    await writeFile(path.join(ws, 'src', 'a.ts'), Array.from({ length: 80 }, (_, i) => `const needle${i} = ${i};`).join('\n'));
    await writeFile(path.join(ws, 'src', 'b.md'), 'nothing here');
    const grep = (await rt.exec('search_files', { pattern: 'needle[0-9]+', path: 'alpha' })) as { results: string; mode: string };
    expect(grep.mode).toBe('grep');
    expect(grep.results.split('\n')).toHaveLength(50);
    expect(grep.results.split('\n')[0]).toBe('src/a.ts:1:const needle0 = 0;');
    expect(await rt.exec('search_files', { pattern: 'absent', path: 'alpha' })).toEqual({ results: '(no matches)', mode: 'grep' });
    expect(await rt.exec('search_files', { pattern: '*.md', path: 'alpha', mode: 'find' })).toEqual({ results: 'src/b.md', mode: 'find' });
    expect(await rt.exec('search_files', { pattern: 'x', path: outside.dir })).toEqual({ error: expect.stringContaining('Access denied') });
    expect(await rt.exec('search_files', { pattern: 'x', path: 'alpha/nope' })).toEqual({ error: 'Directory not found: alpha/nope' });
    expect(await rt.exec('search_files', { pattern: '(', path: 'alpha' })).toEqual({ error: expect.stringContaining('Invalid search') });
    await writeFile(path.join(ws, 'wide.txt'), Array.from({ length: 40 }, () => `needle ${'x'.repeat(200)}`).join('\n'));
    expect(((await rt.exec('search_files', { pattern: 'needle ', path: 'alpha' })) as { results: string }).results).toHaveLength(4000);
  });

  it("lists a workspace's folders, staying inside it", async () => {
    expect(await rt.exec('list_directory', { project_id: 'alpha' })).toEqual({ error: expect.stringContaining('has no workspaces') });
    await rt.db.workspaces.create({ id: 'w1', projectId: 'alpha', name: 'main', path: ws, sourceType: 'link', repoId: null });
    await mkdir(path.join(ws, 'src'));
    await writeFile(path.join(ws, 'README.md'), 'hello');
    rt.handler.activeProjectId = 'alpha';
    expect(await rt.exec('list_directory')).toEqual({
      project_id: 'alpha',
      path: '/',
      workspace_path: ws,
      workspace_name: 'main',
      directories: ['src'],
      files: [{ name: 'README.md', size: 5 }],
    });
    expect(await rt.exec('list_directory', { workspace: 'w1', path: 'src' })).toMatchObject({ path: 'src', directories: [], files: [] });
    expect(await rt.exec('list_directory', { path: '../..' })).toEqual({ error: expect.stringContaining('Access denied') });
    expect(await rt.exec('list_directory', { path: 'missing' })).toEqual({ error: 'Directory not found: missing' });
    expect(await rt.exec('list_directory', { workspace: 'other' })).toEqual({ error: "Workspace 'other' not found in project 'alpha'." });
    rt.handler.activeProjectId = null;
    expect(await rt.exec('list_directory')).toEqual({ error: expect.stringContaining('No project given') });
  });
});
