import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { openRegularFile, openRegularFileToWrite } from '../util/regular-file';
import path from 'node:path';
import { z } from 'zod';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { nextOffset, pageFields, pageOf, sliceOf, type ListPaging } from './paging';
import { allowedRoots, keepAllowed, type AllowedRoots, refusalAt, validateOpened, validatePath } from './path-validation';
import { requireProject } from './projects';
import { optional, requiredText } from './schema';

/** A note's file name: the title lowercased, every run of other characters a hyphen. */
export function noteSlug(title: string): string {
  return title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

function titleFromName(name: string): string {
  const words = name.replace(/\.md$/, '').replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The first `bytes` of a file as text (a note may be as large as an agent made it). */
async function fileStart(allowed: AllowedRoots, file: string, bytes: number): Promise<{ text: string; size: number }> {
  const handle = await openRegularFile(file);
  if (!handle) return { text: '', size: 0 };
  try {
    await validateOpened(allowed, handle, file);
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, bytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: new TextDecoder().decode(buffer.subarray(0, bytesRead), { stream: true }), size };
  } finally {
    await handle.close();
  }
}

/** A title's line is read from the first 4 KB: the file's first line when it starts with `#`. */
async function fileTitle(allowed: AllowedRoots, file: string, name: string): Promise<string> {
  const first = (await fileStart(allowed, file, 4096)).text.split('\n', 1)[0] ?? '';
  return first.startsWith('#') ? first.replace(/^#+\s*/, '').trim() || titleFromName(name) : titleFromName(name);
}

async function notesDir(ctx: CommandContext, projectId: string): Promise<string> {
  const project = await requireProject(ctx, projectId);
  if (!project.workspace) throw new CommandError(`Project '${projectId}' has no workspace.`);
  // Judged by real paths, like every file command: a symlinked notes/ must not lead outside.
  return validatePath(ctx, path.join(project.workspace, 'notes'));
}

async function noteFile(ctx: CommandContext, dir: string, title: string): Promise<{ slug: string; file: string }> {
  const slug = noteSlug(title);
  if (!slug) throw new CommandError(`The title ${JSON.stringify(title)} has no letters or digits to name a note file with.`);
  // A note file that is a symlink leading outside is refused, for reading and for writing.
  await validatePath(ctx, path.join(dir, `${slug}.md`));
  return { slug, file: path.join(dir, `${slug}.md`) };
}

/** Writes a note's file; a pipe or folder an agent put at its name is refused, never waited on. */
async function writeNoteFile(allowed: AllowedRoots, file: string, text: string, how: 'replace' | 'append'): Promise<void> {
  const opened = await openRegularFileToWrite(file, async (real) => refusalAt(allowed, real, file));
  if ('notRegular' in opened)
    throw new CommandError(`${file} is not a regular file, so the note cannot be written there. Look at it and remove it.`);
  if ('refused' in opened) throw new CommandError(opened.refused);
  const { handle } = opened;
  try {
    await validateOpened(allowed, handle, file);
    if (how === 'replace') await handle.truncate(0);
    const bytes = Buffer.from(text);
    let at = how === 'append' ? (await handle.stat()).size : 0;
    for (let done = 0; done < bytes.length; ) {
      const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, at);
      done += bytesWritten;
      at += bytesWritten;
    }
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function markdownFiles(
  ctx: CommandContext,
  dir: string,
): Promise<Array<{ name: string; file: string; size: number; mtime: number }>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out = [];
  // Entries whose real path is outside the allowed folders (symlinks out) are not listed.
  for (const name of (
    await keepAllowed(
      ctx,
      dir,
      names.filter((n) => n.endsWith('.md')),
    )
  ).sort()) {
    const file = path.join(dir, name);
    const info = await stat(file);
    if (info.isFile()) out.push({ name, file, size: info.size, mtime: info.mtimeMs / 1000 });
  }
  return out;
}

/** The most of a note read_note returns: past it, the start with a notice (an agent may have grown one without end). */
export const NOTE_READ_BYTES = 1024 * 1024;

const projectId = requiredText('Project id');
const title = requiredText('Note title');
const NOTE_LIST: ListPaging = { key: 'notes', defaultLimit: 100, maxLimit: 500 };
/** One limit pages both lists of compare_specs_notes; specs_total and notes_total count them. */
const COMPARE_LIST: ListPaging = { key: 'notes', totalKey: 'notes_total', defaultLimit: 100, maxLimit: 500 };

export const listNotes = defineCommand({
  name: 'list_notes',
  group: 'notes',
  kind: 'read',
  description: `List a project's notes (Markdown files in its workspace's notes/ folder) by name, ${NOTE_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () => z.object({ project_id: projectId, ...pageFields(NOTE_LIST) }),
  list: NOTE_LIST,
  async run({ project_id, ...paging }, ctx) {
    const dir = await notesDir(ctx, project_id);
    // Titles are read only for the page shown: reading them is what costs.
    const page = sliceOf(await markdownFiles(ctx, dir), pageOf(paging, NOTE_LIST.defaultLimit));
    const allowed = await allowedRoots(ctx);
    const notes = [];
    for (const f of page.items) {
      notes.push({ name: f.name, title: await fileTitle(allowed, f.file, f.name), size_bytes: f.size, modified: f.mtime, path: f.file });
    }
    return { project_id, notes, total: page.total, next_offset: page.next_offset };
  },
});

export const writeNote = defineCommand({
  name: 'write_note',
  group: 'notes',
  kind: 'change',
  description: 'Write a note (replacing a note with the same title).',
  input: () => z.object({ project_id: projectId, title, content: z.string().describe('Markdown content') }),
  async run(args, ctx) {
    const dir = await notesDir(ctx, args.project_id);
    const { file } = await noteFile(ctx, dir, args.title);
    const existed = await exists(file);
    await mkdir(dir, { recursive: true });
    await writeNoteFile(await allowedRoots(ctx), file, args.content, 'replace');
    await ctx.events.emit(existed ? 'note_updated' : 'note_created', {
      projectId: args.project_id,
      payload: { title: args.title, path: file },
    });
    return { path: file, title: args.title, status: existed ? 'updated' : 'created' };
  },
});

export const appendNote = defineCommand({
  name: 'append_note',
  group: 'notes',
  kind: 'change',
  description: 'Add text to the end of a note, creating it (with a # title) when it does not exist.',
  input: () => z.object({ project_id: projectId, title, content: z.string().describe('Markdown to append') }),
  async run(args, ctx) {
    const dir = await notesDir(ctx, args.project_id);
    const { file } = await noteFile(ctx, dir, args.title);
    const existed = await exists(file);
    await mkdir(dir, { recursive: true });
    await writeNoteFile(
      await allowedRoots(ctx),
      file,
      existed ? `\n\n${args.content}` : `# ${args.title}\n\n${args.content}`,
      existed ? 'append' : 'replace',
    );
    const size = (await stat(file)).size;
    await ctx.events.emit(existed ? 'note_updated' : 'note_created', {
      projectId: args.project_id,
      payload: { title: args.title, path: file },
    });
    return { path: file, title: args.title, status: existed ? 'appended' : 'created', size_bytes: size };
  },
});

export const readNote = defineCommand({
  name: 'read_note',
  group: 'notes',
  kind: 'read',
  description: 'Read a note.',
  input: () => z.object({ project_id: projectId, title }),
  async run(args, ctx) {
    const dir = await notesDir(ctx, args.project_id);
    const { file } = await noteFile(ctx, dir, args.title);
    if (!(await exists(file))) throw new CommandError(`Note '${args.title}' not found in project '${args.project_id}'.`);
    const { text, size } = await fileStart(await allowedRoots(ctx), file, NOTE_READ_BYTES);
    const content =
      size > NOTE_READ_BYTES
        ? `${text}\n\n[… cut: showing the first ${NOTE_READ_BYTES / 1024 / 1024} MB of ${(size / 1024 / 1024).toFixed(1)} MB]`
        : text;
    return { content, title: args.title, path: file, size_bytes: size };
  },
});

export const deleteNote = defineCommand({
  name: 'delete_note',
  group: 'notes',
  kind: 'destructive',
  description: 'Delete a note.',
  input: () => z.object({ project_id: projectId, title }),
  async run(args, ctx) {
    const dir = await notesDir(ctx, args.project_id);
    const { file } = await noteFile(ctx, dir, args.title);
    if (!(await exists(file))) throw new CommandError(`Note '${args.title}' not found in project '${args.project_id}'.`);
    await unlink(file);
    await ctx.events.emit('note_deleted', { projectId: args.project_id, payload: { title: args.title, path: file } });
    return { deleted: file, title: args.title };
  },
});

export const compareSpecsNotes = defineCommand({
  name: 'compare_specs_notes',
  group: 'notes',
  kind: 'read',
  description: `List a project's specs (specs/ in its repo or workspace) beside its notes, to compare them, ${COMPARE_LIST.defaultLimit} of each a page; specs_total and notes_total count them all, next_offset asks for the next page.`,
  input: () =>
    z.object({
      project_id: projectId,
      specs_path: optional(requiredText('Specs folder to use instead')),
      ...pageFields(COMPARE_LIST),
    }),
  list: COMPARE_LIST,
  async run(args, ctx) {
    const request = pageOf(args, COMPARE_LIST.defaultLimit);
    const notesPath = await notesDir(ctx, args.project_id);
    const project = await requireProject(ctx, args.project_id);
    let specsPath: string;
    if (args.specs_path) {
      specsPath = await validatePath(ctx, path.resolve(project.workspace, args.specs_path));
    } else {
      const [repo] = await ctx.db.repos.list(args.project_id);
      const repoRoot = repo ? (repo.sourceType === 'link' ? repo.sourcePath : repo.checkoutBasePath) : null;
      const inRepo = repoRoot ? path.join(repoRoot, 'specs') : null;
      specsPath =
        inRepo &&
        (await stat(inRepo).then(
          (s) => s.isDirectory(),
          () => false,
        ))
          ? inRepo
          : path.join(project.workspace, 'specs');
    }
    const allowed = await allowedRoots(ctx);
    const describe = async (dir: string) => {
      const page = sliceOf(await markdownFiles(ctx, dir), request);
      const listed = [];
      for (const f of page.items) listed.push({ name: f.name, title: await fileTitle(allowed, f.file, f.name), size_bytes: f.size });
      return { listed, total: page.total };
    };
    const [specs, notes] = [await describe(specsPath), await describe(notesPath)];
    return {
      specs: specs.listed,
      notes: notes.listed,
      specs_path: specsPath,
      notes_path: notesPath,
      project_id: args.project_id,
      specs_total: specs.total,
      notes_total: notes.total,
      next_offset: nextOffset(request, Math.max(specs.listed.length, notes.listed.length), Math.max(specs.total, notes.total)),
    };
  },
});

export const noteCommands = [listNotes, writeNote, appendNote, readNote, deleteNote, compareSpecsNotes];
