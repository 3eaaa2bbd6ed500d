import { spawn } from 'node:child_process';
import type { Dirent } from 'node:fs';
import type { WorkspaceRecord } from '../db/repositories/workspaces';
import { type FileHandle, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { z } from 'zod';
import { firstLines, type FirstLines } from '../util/first-lines';
import { openRegularFile } from '../util/regular-file';
import { runShell } from '../util/run-shell';
import { cutWhole } from '../util/whole-characters';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import {
  allowedRoots,
  fromWorkspaceDir,
  isAllowed,
  isWithin,
  keepAllowed,
  resolveReal,
  validateOpened,
  validatePath,
} from './path-validation';
import { projectIdOrActive, requireProject } from './projects';
import { integer, optional, requiredText } from './schema';
import { limitField, offsetField, pageOf, sliceOf } from './paging';

export const READ_FILE_DEFAULT_LINES = 200;
/** The most text read_file returns, however many lines are asked for. */
export const READ_FILE_MAX_BYTES = 1024 * 1024;
export const COMMAND_DEFAULT_TIMEOUT = 30;
export const COMMAND_MAX_TIMEOUT = 120;
export const STDOUT_LIMIT = 4000;
export const STDERR_LIMIT = 2000;
export const SEARCH_MAX_MATCHES = 50;
export const SEARCH_OUTPUT_LIMIT = 4000;
/** Find mode stops walking after this many matching files. */
export const FIND_MAX_FILES = 10_000;
const SEARCH_TIMEOUT_MS = 30_000;

async function requireDirectory(dir: string, shown: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new CommandError(`Directory not found: ${shown}`);
}

async function looksBinary(file: FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(8192);
  const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead).includes(0);
}

export const readFileCommand = defineCommand({
  name: 'read_file',
  group: 'files',
  kind: 'read',
  description: `Read a text file inside the workspace directory or a linked repo (first ${READ_FILE_DEFAULT_LINES} lines by default).`,
  input: () =>
    z.object({
      path: requiredText('File path; relative paths start at the workspace directory'),
      max_lines: optional(integer(`Most lines to return (default ${READ_FILE_DEFAULT_LINES})`, { min: 1 })),
    }),
  async run(args, ctx) {
    const file = await validatePath(ctx, fromWorkspaceDir(ctx, args.path));
    const info = await stat(file).catch(() => null);
    if (!info) throw new CommandError(`File not found: ${args.path}`);
    if (info.isDirectory()) throw new CommandError(`${args.path} is a directory, not a file. Use list_directory.`);
    const handle = await openRegularFile(file);
    if (!handle) throw new CommandError(`${args.path} is not a regular file (a device, socket or pipe), so it has no text to show.`);
    const maxLines = args.max_lines ?? READ_FILE_DEFAULT_LINES;
    let read: FirstLines;
    try {
      await validateOpened(await allowedRoots(ctx), handle, args.path);
      if (await looksBinary(handle)) throw new CommandError(`${args.path} is a binary file and cannot be shown as text.`);
      read = await firstLines(handle, { maxLines, maxBytes: READ_FILE_MAX_BYTES });
    } finally {
      await handle.close();
    }
    const { lines, total, cutAtBytes, cutInsideFirstLine } = read;
    const mb = READ_FILE_MAX_BYTES / 1024 / 1024;
    let content = lines.join('\n');
    if (cutInsideFirstLine) {
      content += `\n\n[… truncated at ${mb} MB inside line 1 of ${total}; read_file returns at most ${mb} MB]`;
    } else if (cutAtBytes) {
      content += `\n\n[… truncated at ${mb} MB: showing ${lines.length} of ${total} lines; read_file returns at most ${mb} MB]`;
    } else if (total > maxLines) {
      content += `\n\n[… truncated: showing ${maxLines} of ${total} lines; pass max_lines to see more]`;
    }
    return { content, path: file };
  },
});

async function resolveWorkingDir(ctx: CommandContext, given: string): Promise<string> {
  if (path.isAbsolute(given)) return given;
  const project = await ctx.db.projects.get(given);
  return project ? project.workspace : path.join(ctx.config.workspaceDir, given);
}

export const runCommand = defineCommand({
  name: 'run_command',
  group: 'files',
  kind: 'admin',
  description: `Run a shell command in a workspace folder (timeout ${COMMAND_DEFAULT_TIMEOUT} s by default, at most ${COMMAND_MAX_TIMEOUT} s).`,
  input: () =>
    z.object({
      command: requiredText('Shell command line'),
      working_dir: requiredText('Folder: absolute, a project id, or relative to the workspace directory'),
      timeout: optional(
        integer(`Seconds before the command is killed (default ${COMMAND_DEFAULT_TIMEOUT})`, { min: 1, max: COMMAND_MAX_TIMEOUT }),
      ),
    }),
  async run(args, ctx) {
    const dir = await validatePath(ctx, await resolveWorkingDir(ctx, args.working_dir));
    await requireDirectory(dir, args.working_dir);
    const timeout = args.timeout ?? COMMAND_DEFAULT_TIMEOUT;
    const run = await runShell(args.command, {
      cwd: dir,
      timeoutMs: timeout * 1000,
      maxStdout: STDOUT_LIMIT,
      maxStderr: STDERR_LIMIT,
    });
    if (run.timedOut) throw new CommandError(`Command timed out after ${timeout} seconds and was stopped.`);
    return { returncode: run.exitCode, stdout: run.stdout, stderr: run.stderr };
  },
});

function grep(pattern: string, dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // No shell: the pattern is one argument after `--`, so it can never become an option or a
    // command. -r (not -R) does not follow symlinks found while recursing, so a link inside the
    // workspace cannot lead the search outside it; git's internals are noise and skipped.
    const child = spawn('grep', ['-rnEI', '--exclude-dir=.git', '--', pattern, '.'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const matches: string[] = [];
    let pending = '';
    let stderr = '';
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(matches.join('\n'));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new CommandError(`Search timed out after ${SEARCH_TIMEOUT_MS / 1000} seconds; narrow the path or the pattern.`));
    }, SEARCH_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      // Only the new chunk is split, and a line is kept up to what the answer can show: a match in
      // a minified file is one line of megabytes.
      const parts = chunk.split('\n');
      // A line already as long as the answer can show takes nothing more, so it stays its true start.
      parts[0] = pending.length >= SEARCH_OUTPUT_LIMIT ? pending : pending + parts[0];
      pending = (parts.pop() ?? '').slice(0, SEARCH_OUTPUT_LIMIT);
      for (const line of parts) {
        if (matches.length < SEARCH_MAX_MATCHES) matches.push(line.replace(/^\.\//, '').slice(0, SEARCH_OUTPUT_LIMIT));
      }
      if (matches.length >= SEARCH_MAX_MATCHES) {
        child.kill('SIGKILL');
        finish();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < SEARCH_OUTPUT_LIMIT) stderr += chunk.toString();
    });
    child.on('error', (err) => finish(err));
    child.on('close', (code) => {
      if (pending && matches.length < SEARCH_MAX_MATCHES) matches.push(pending.replace(/^\.\//, ''));
      if (code === 2 && matches.length === 0) {
        finish(new CommandError(`Invalid search: ${stderr.trim().split('\n')[0] || 'grep failed'}`));
      } else finish();
    });
  });
}

/** `..` as a whole path segment, also inside braces or extglobs (`{..,a}`, `@(..)`) or escaped. */
const PARENT_SEGMENT = /(^|[/{,(|])\\?\.\\?\.(?=$|[/},)|])/;

/** Find-mode patterns stay below the searched folder: no absolute pattern, no `..`. */
function refuseLeavingPattern(pattern: string): void {
  if (pattern.startsWith('/') || pattern.startsWith('~') || PARENT_SEGMENT.test(pattern)) {
    throw new CommandError(
      `The pattern ${pattern} reaches outside the folder being searched. Use a glob below it, such as *.ts or src/**/*.md, and give the folder as path.`,
    );
  }
}

/**
 * Find mode: regular files whose path matches the glob (a bare name pattern matches at any
 * depth), sorted. Symlinks are neither listed nor followed while matching wildcards; a pattern
 * naming a symlinked folder literally is the caller's to check (keepAllowed).
 */
function findFiles(pattern: string, dir: string): Promise<{ files: string[]; stopped: boolean }> {
  const glob = pattern.includes('/') ? pattern : `**/${pattern}`;
  return new Promise((resolve, reject) => {
    const found: string[] = [];
    const stream = fg.stream(glob, { cwd: dir, onlyFiles: true, dot: true, followSymbolicLinks: false, suppressErrors: true });
    const stop = () => (stream as NodeJS.ReadableStream & { destroy(): void }).destroy();
    const timer = setTimeout(() => {
      stop();
      reject(new CommandError(`Search timed out after ${SEARCH_TIMEOUT_MS / 1000} seconds; narrow the path or the pattern.`));
    }, SEARCH_TIMEOUT_MS);
    stream.on('data', (entry: string | Buffer) => {
      found.push(String(entry));
      // A pattern such as *.js under node_modules matches hundreds of thousands of files, and the
      // answer shows about a hundred: stop walking, and say so.
      if (found.length < FIND_MAX_FILES) return;
      clearTimeout(timer);
      stop();
      resolve({ files: found.sort(), stopped: true });
    });
    stream.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    stream.on('end', () => {
      clearTimeout(timer);
      resolve({ files: found.sort(), stopped: false });
    });
  });
}

export const searchFiles = defineCommand({
  name: 'search_files',
  group: 'files',
  kind: 'read',
  description: `Search file contents with a regular expression (grep mode, ${SEARCH_MAX_MATCHES} matches at most) or file names with a glob (find mode).`,
  input: () =>
    z.object({
      pattern: requiredText('Regular expression (grep) or file-name glob such as *.ts (find)'),
      path: requiredText('Folder to search; relative paths start at the workspace directory'),
      mode: optional(z.enum(['grep', 'find']).describe('grep (default) or find')),
    }),
  async run(args, ctx) {
    const dir = await validatePath(ctx, fromWorkspaceDir(ctx, args.path));
    await requireDirectory(dir, args.path);
    const mode = args.mode ?? 'grep';
    let output: string;
    if (mode === 'grep') {
      output = await grep(args.pattern, dir);
    } else {
      refuseLeavingPattern(args.pattern);
      const { files, stopped } = await findFiles(args.pattern, dir);
      output = (await keepAllowed(ctx, dir, files)).join('\n');
      if (stopped)
        output = `(stopped after ${FIND_MAX_FILES} matching files, sorted below among those found; narrow the pattern or the path to see them all)\n${output}`;
    }
    return { results: output ? cutWhole(output, SEARCH_OUTPUT_LIMIT) : '(no matches)', mode };
  },
});

const DIRECTORY_PAGE = 500;
const DIRECTORY_MAX_PAGE = 2000;

export const listDirectory = defineCommand({
  name: 'list_directory',
  group: 'files',
  kind: 'read',
  description: `List a folder of a project's workspace (default: the first workspace's root), ${DIRECTORY_PAGE} entries a page in name order; total counts every entry and next_offset asks for the next page.`,
  input: () =>
    z.object({
      project_id: optional(requiredText('Project id (defaults to the active project)')),
      workspace: optional(requiredText('Workspace name or id')),
      path: optional(z.string().describe('Folder inside the workspace; empty for its root')),
      limit: limitField(DIRECTORY_PAGE, DIRECTORY_MAX_PAGE),
      offset: offsetField(),
    }),
  async run(args, ctx) {
    const projectId = projectIdOrActive(ctx, args.project_id);
    await requireProject(ctx, projectId);
    let workspace: WorkspaceRecord | null | undefined;
    if (args.workspace) {
      workspace = await ctx.db.workspaces.findInProject(projectId, args.workspace);
      if (!workspace) throw new CommandError(`Workspace '${args.workspace}' not found in project '${projectId}'.`);
    } else {
      [workspace] = await ctx.db.workspaces.list(projectId);
      if (!workspace) throw new CommandError(`Project '${projectId}' has no workspaces. Add one with /aq add_workspace.`);
    }
    const root = await validatePath(ctx, workspace.path);
    const relative = (args.path ?? '').replace(/^\/+/, '');
    const target = await validatePath(ctx, path.join(root, relative));
    if (!isWithin(target, root)) throw new CommandError(`Access denied: ${args.path} is outside the workspace.`);
    let entries: Dirent[];
    try {
      entries = await readdir(target, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') throw new CommandError(`Permission denied: ${relative || '/'}`);
      throw new CommandError(`Directory not found: ${relative || '/'}`);
    }
    const directories: string[] = [];
    const files: Array<{ name: string; size: number }> = [];
    const allowed = await allowedRoots(ctx);
    // Code-point order, the same on every machine (localeCompare depends on the system locale).
    // Only the page's entries are looked at (a symlink's target, a file's size).
    const page = sliceOf(
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      pageOf(args, DIRECTORY_PAGE),
    );
    for (const entry of page.items) {
      // A symlink is shown as what it points to when that is allowed; one leading outside is shown
      // as a bare name (no size, no kind), so nothing about the place outside is told.
      let info = null;
      if (entry.isSymbolicLink()) {
        const real = await resolveReal(path.join(target, entry.name)).catch(() => null);
        if (!real || !isAllowed(real, allowed)) {
          files.push({ name: entry.name, size: 0 });
          continue;
        }
        info = await stat(real).catch(() => null);
      }
      if (entry.isDirectory() || info?.isDirectory()) {
        directories.push(entry.name);
      } else {
        const fileInfo = info ?? (await stat(path.join(target, entry.name)).catch(() => null));
        files.push({ name: entry.name, size: fileInfo?.size ?? 0 });
      }
    }
    return {
      project_id: projectId,
      path: relative || '/',
      workspace_path: root,
      workspace_name: workspace.name,
      directories,
      files,
      total: page.total,
      next_offset: page.next_offset,
    };
  },
});

export const fileCommands = [readFileCommand, runCommand, searchFiles, listDirectory];
