import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NOTE_READ_BYTES, noteSlug } from '../../../src/commands/notes';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('note slugs', () => {
  it('lowercases, turns other characters into single hyphens and trims them', () => {
    expect(noteSlug('Design Ideas!')).toBe('design-ideas');
    expect(noteSlug('  API -- v2 / notes  ')).toBe('api-v2-notes');
    expect(noteSlug('../../etc/passwd')).toBe('etc-passwd');
    expect(noteSlug('Café 2')).toBe('café-2');
    expect(noteSlug('../..')).toBe('');
    expect(noteSlug('!!!')).toBe('');
  });
});

describe('note commands', () => {
  let rt: TestRuntime;
  let ws: string;
  let notes: string;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    ws = (await rt.exec('create_project', { name: 'alpha' })).workspace as string;
    notes = path.join(ws, 'notes');
  });
  afterEach(() => rt.cleanup());

  it('list_notes: empty without a notes folder; sorted .md files with title, size, float mtime and absolute path', async () => {
    expect(await rt.exec('list_notes', { project_id: 'alpha' })).toEqual({ project_id: 'alpha', notes: [], total: 0, next_offset: null });
    await mkdir(notes);
    await writeFile(path.join(notes, 'zeta.md'), '# Last One\nbody');
    await writeFile(path.join(notes, 'alpha-beta.md'), 'no heading here');
    await writeFile(path.join(notes, 'ignored.txt'), 'not markdown');
    await mkdir(path.join(notes, 'folder.md'));
    const result = (await rt.exec('list_notes', { project_id: 'alpha' })) as { notes: Array<Record<string, unknown>> };
    expect(result.notes).toEqual([
      { name: 'alpha-beta.md', title: 'Alpha beta', size_bytes: 15, modified: expect.any(Number), path: path.join(notes, 'alpha-beta.md') },
      { name: 'zeta.md', title: 'Last One', size_bytes: 15, modified: expect.any(Number), path: path.join(notes, 'zeta.md') },
    ]);
    const mtime = (await stat(path.join(notes, 'zeta.md'))).mtimeMs / 1000;
    expect(result.notes[1].modified).toBeCloseTo(mtime, 3);
    expect(Math.abs((result.notes[1].modified as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(await rt.exec('list_notes', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
  });

  it('write_note creates the folder, writes the slug file and overwrites it on the same slug', async () => {
    const file = path.join(notes, 'design-ideas.md');
    expect(await rt.exec('write_note', { project_id: 'alpha', title: 'Design Ideas!', content: '# Design Ideas\n\nUse queues.' })).toEqual({
      path: file,
      title: 'Design Ideas!',
      status: 'created',
    });
    expect(await rt.exec('write_note', { project_id: 'alpha', title: 'design ideas', content: 'v2' })).toEqual({
      path: file,
      title: 'design ideas',
      status: 'updated',
    });
    expect(await readFile(file, 'utf8')).toBe('v2');
    expect(await rt.exec('write_note', { project_id: 'ghost', title: 'x', content: 'y' })).toEqual({ error: "Project 'ghost' not found." });
    expect(await rt.exec('write_note', { project_id: 'alpha', title: '?!', content: 'y' })).toEqual({
      error: 'The title "?!" has no letters or digits to name a note file with.',
    });
    const events = await rt.db.events.recent(2);
    expect(events.map((e) => e.type)).toEqual(['note_updated', 'note_created']);
    expect(events[1]).toMatchObject({ projectId: 'alpha', payload: { title: 'Design Ideas!', path: file } });
  });

  it('read_note returns content, title, path and byte size', async () => {
    await rt.exec('write_note', { project_id: 'alpha', title: 'Café', content: '# Café\n\nné' });
    expect(await rt.exec('read_note', { project_id: 'alpha', title: 'café' })).toEqual({
      content: '# Café\n\nné',
      title: 'café',
      path: path.join(notes, 'café.md'),
      size_bytes: 12, // bytes, not characters: é is two
    });
    expect(await rt.exec('read_note', { project_id: 'alpha', title: 'missing' })).toEqual({
      error: "Note 'missing' not found in project 'alpha'.",
    });
    expect(await rt.exec('read_note', { project_id: 'ghost', title: 'x' })).toEqual({ error: "Project 'ghost' not found." });
  });

  it('refuses to read or write a pipe an agent put at a note’s name, at once', async () => {
    await mkdir(notes);
    const pipe = path.join(notes, 'queue.md');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const refusal = `${pipe} is not a regular file, so the note cannot be written there. Look at it and remove it.`;
    expect(await rt.exec('write_note', { project_id: 'alpha', title: 'Queue', content: 'x' })).toEqual({ error: refusal });
    expect(await rt.exec('append_note', { project_id: 'alpha', title: 'Queue', content: 'x' })).toEqual({ error: refusal });
    expect(await rt.exec('read_note', { project_id: 'alpha', title: 'Queue' })).toEqual({
      error: "Note 'Queue' not found in project 'alpha'.",
    });
    expect((await rt.exec('list_notes', { project_id: 'alpha' })).notes).toEqual([]);
  });

  it('reads the title from the start of a large note, and returns its first MB with a notice', async () => {
    // A note an agent grew far: é (two bytes) straddles the 1 MB mark, and is not split.
    const body = `# Build log\n${'x'.repeat(NOTE_READ_BYTES - 13)}é${'y'.repeat(3 * 1024 * 1024)}`;
    await mkdir(notes);
    await writeFile(path.join(notes, 'build-log.md'), body);
    const listed = (await rt.exec('list_notes', { project_id: 'alpha' })) as { notes: Array<Record<string, unknown>> };
    expect(listed.notes).toEqual([
      expect.objectContaining({ name: 'build-log.md', title: 'Build log', size_bytes: Buffer.byteLength(body) }),
    ]);
    const read = (await rt.exec('read_note', { project_id: 'alpha', title: 'Build log' })) as { content: string; size_bytes: number };
    expect(read.size_bytes).toBe(Buffer.byteLength(body));
    expect(read.content).toBe(`# Build log\n${'x'.repeat(NOTE_READ_BYTES - 13)}\n\n[… cut: showing the first 1 MB of 4.0 MB]`);
  });

  it('append_note creates with a # title line, then appends after a blank line', async () => {
    const file = path.join(notes, 'log.md');
    expect(await rt.exec('append_note', { project_id: 'alpha', title: 'Log', content: 'first' })).toEqual({
      path: file,
      title: 'Log',
      status: 'created',
      size_bytes: 12,
    });
    expect(await rt.exec('append_note', { project_id: 'alpha', title: 'log', content: 'second' })).toEqual({
      path: file,
      title: 'log',
      status: 'appended',
      size_bytes: 20,
    });
    expect(await readFile(file, 'utf8')).toBe('# Log\n\nfirst\n\nsecond');
    expect(await rt.exec('append_note', { project_id: 'alpha', title: '--', content: 'x' })).toEqual({
      error: expect.stringContaining('no letters or digits'),
    });
    expect(await rt.exec('append_note', { project_id: 'ghost', title: 'x', content: 'x' })).toEqual({
      error: "Project 'ghost' not found.",
    });
    expect((await rt.db.events.recent(2)).map((e) => e.type)).toEqual(['note_updated', 'note_created']);
  });

  it('delete_note removes the file and emits note_deleted', async () => {
    await rt.exec('write_note', { project_id: 'alpha', title: 'Temp', content: 'x' });
    expect(await rt.exec('delete_note', { project_id: 'alpha', title: 'TEMP' })).toEqual({
      deleted: path.join(notes, 'temp.md'),
      title: 'TEMP',
    });
    expect(await readdir(notes)).toEqual([]);
    expect((await rt.db.events.recent(1))[0].type).toBe('note_deleted');
    expect(await rt.exec('delete_note', { project_id: 'alpha', title: 'temp' })).toEqual({
      error: "Note 'temp' not found in project 'alpha'.",
    });
    expect(await rt.exec('delete_note', { project_id: 'ghost', title: 'temp' })).toEqual({ error: "Project 'ghost' not found." });
  });

  it('never lets a title escape the notes folder', async () => {
    await writeFile(path.join(ws, 'keep.md'), 'outside notes/');
    for (const title of ['../../x', '../keep', '/etc/passwd', '..\\..\\x']) {
      const written = await rt.exec('write_note', { project_id: 'alpha', title, content: 'x' });
      expect(path.dirname(written.path as string)).toBe(notes);
    }
    expect(await readFile(path.join(ws, 'keep.md'), 'utf8')).toBe('outside notes/');
    expect((await rt.exec('delete_note', { project_id: 'alpha', title: '../keep' })).deleted).toBe(path.join(notes, 'keep.md'));
    expect(await readFile(path.join(ws, 'keep.md'), 'utf8')).toBe('outside notes/');
    expect((await readdir(notes)).sort()).toEqual(['etc-passwd.md', 'x.md']);
  });

  it('refuses note commands for a project without a workspace', async () => {
    await rt.db.em().getConnection().execute("update projects set workspace = '' where id = 'alpha'");
    for (const [name, args] of [
      ['list_notes', {}],
      ['write_note', { title: 't', content: 'c' }],
      ['read_note', { title: 't' }],
      ['compare_specs_notes', {}],
    ] as const) {
      expect(await rt.exec(name, { project_id: 'alpha', ...args })).toEqual({ error: "Project 'alpha' has no workspace." });
    }
  });

  it("compare_specs_notes lists the workspace specs/ (or the repo's) beside the notes", async () => {
    expect(await rt.exec('compare_specs_notes', { project_id: 'alpha' })).toEqual({
      specs: [],
      notes: [],
      specs_path: path.join(ws, 'specs'),
      notes_path: notes,
      project_id: 'alpha',
      specs_total: 0,
      notes_total: 0,
      next_offset: null,
    });
    await mkdir(path.join(ws, 'specs'));
    await writeFile(path.join(ws, 'specs', 'api.md'), '# API spec\n');
    await writeFile(path.join(ws, 'specs', 'plain.md'), 'text');
    await rt.exec('write_note', { project_id: 'alpha', title: 'API', content: '# API notes' });
    expect(await rt.exec('compare_specs_notes', { project_id: 'alpha' })).toEqual({
      specs: [
        { name: 'api.md', title: 'API spec', size_bytes: 11 },
        { name: 'plain.md', title: 'Plain', size_bytes: 4 },
      ],
      notes: [{ name: 'api.md', title: 'API notes', size_bytes: 11 }],
      specs_path: path.join(ws, 'specs'),
      notes_path: notes,
      project_id: 'alpha',
      specs_total: 2,
      notes_total: 1,
      next_offset: null,
    });

    const repoRoot = path.join(ws, 'checkout');
    await mkdir(path.join(repoRoot, 'specs'), { recursive: true });
    await writeFile(path.join(repoRoot, 'specs', 'repo.md'), '# Repo spec');
    await rt.db.repos.create({
      id: 'app',
      projectId: 'alpha',
      name: 'app',
      sourceType: 'link',
      url: null,
      sourcePath: repoRoot,
      defaultBranch: 'main',
      checkoutBasePath: ws,
    });
    const fromRepo = await rt.exec('compare_specs_notes', { project_id: 'alpha' });
    expect(fromRepo).toMatchObject({
      specs: [{ name: 'repo.md', title: 'Repo spec', size_bytes: 11 }],
      specs_path: path.join(repoRoot, 'specs'),
    });

    expect(await rt.exec('compare_specs_notes', { project_id: 'alpha', specs_path: 'specs' })).toMatchObject({
      specs_path: path.join(ws, 'specs'),
    });
    expect(await rt.exec('compare_specs_notes', { project_id: 'alpha', specs_path: '/etc' })).toEqual({
      error: expect.stringContaining('Access denied'),
    });
    expect(await rt.exec('compare_specs_notes', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
  });
});
