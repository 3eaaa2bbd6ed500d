import { type FileHandle, readlink, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../config';
import { CommandError, type CommandContext } from './catalog';
import { settleAll } from '../util/settle-all';
import { isWithin } from '../util/path-within';
import { openedPath } from '../util/regular-file';

/*
 * The one rule for what file commands may reach (read_file, run_command, search_files,
 * list_directory, the notes commands, and the folders add_repo/add_workspace write into).
 *
 * Allowed roots:
 *   1. the workspace folder (config.workspaceDir, AQ_WORKSPACE_DIR);
 *   2. the source_path of every linked repository (add_repo source=link);
 *   3. the path of every linked workspace (add_workspace source=link).
 * A path is allowed when its real path (`..` applied, every symlink resolved, a dangling link
 * followed to where it points) is a root or lies under one. Listings (find mode, directory
 * entries, notes) drop every entry whose real path is outside. The database files are never
 * reachable, whatever the roots.
 *
 * Roots 2 and 3 exist only because someone linked them, so linking is where the rule is
 * guarded (linkTargetCheck): a folder outside the workspace folder needs an admin, and these are
 * never linked: `/`, the home directory or a folder holding it, credential folders in the home
 * directory, system directories (/etc, /usr, /var, /proc, …), and the app's data folder
 * (AQ_HOME) or the database's folder or any folder holding them. A linked root stored before
 * that guard existed that breaks it is ignored here too, so an old record cannot open `/`.
 */

const MAX_LINKS = 40;

/** Top-level system directories (Linux and macOS); never linked, nor anything inside them. */
const SYSTEM_DIRS = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/snap',
  '/sys',
  '/usr',
  '/var',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var',
];

/** Folders in the home directory that hold credentials. */
const HOME_SECRETS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.config'];

/** The machine's fixed places, resolved once: they do not move while the process runs. */
let fixedPlaces: Promise<{ home: string; temp: string; system: string[] }> | null = null;
function machinePlaces(): Promise<{ home: string; temp: string; system: string[] }> {
  fixedPlaces ??= (async () => ({
    home: await resolveReal(os.homedir()),
    temp: await resolveReal(os.tmpdir()),
    system: await settleAll(SYSTEM_DIRS.map((dir) => resolveReal(dir).catch(() => dir))),
  }))();
  return fixedPlaces;
}

/** What path checks need from a command context (tests pass just these two). */
export type PathContext = Pick<CommandContext, 'config' | 'db'>;

/**
 * The real path of `target` even when it does not exist yet: the deepest existing ancestor is
 * resolved (symlinks included) and the rest re-appended, so `..` and symlinked parents are
 * judged by where they really lead. A dangling symlink is followed to where it points, so a link
 * to a not-yet-existing place outside cannot pass as a path inside.
 */
export async function resolveReal(target: string): Promise<string> {
  let current = path.resolve(target);
  const missing: string[] = [];
  for (let links = 0; ; ) {
    try {
      const real = await realpath(current);
      return missing.length ? path.join(real, ...[...missing].reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new CommandError(`Cannot resolve ${target}: it goes through a loop of symbolic links.`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
    const link = await readlink(current).catch(() => null);
    if (link !== null) {
      if (++links > MAX_LINKS) throw new CommandError(`Cannot resolve ${target}: it goes through a loop of symbolic links.`);
      // The link exists, so its folder does: read the target from that folder's real path.
      current = path.resolve(await realpath(path.dirname(current)), link);
      continue;
    }
    const parent = path.dirname(current);
    if (parent === current) return path.join(current, ...[...missing].reverse());
    missing.push(path.basename(current));
    current = parent;
  }
}

export { isWithin };

/** The real paths a file command may reach, and the files it never may (see the top of this file). */
export interface AllowedRoots {
  roots: string[];
  hidden: string[];
}

export async function allowedRoots(ctx: PathContext): Promise<AllowedRoots> {
  const roots = [await resolveReal(ctx.config.workspaceDir)];
  const linkedWorkspaces = (await ctx.db.workspaces.list()).filter((w) => w.sourceType === 'link').map((w) => w.path);
  for (const linked of new Set([...(await ctx.db.repos.sourcePaths()), ...linkedWorkspaces])) {
    // A linked folder that cannot be resolved (a link loop) allows nothing, and blocks nothing.
    const real = await resolveReal(linked).catch(() => null);
    if (real && !(await linkRefusal(ctx.config, real))) roots.push(real);
  }
  const db = await resolveReal(ctx.config.databasePath);
  return { roots, hidden: [db, `${db}-wal`, `${db}-shm`, `${db}-journal`] };
}

/** Whether a real path is allowed. */
export function isAllowed(real: string, allowed: AllowedRoots): boolean {
  return allowed.roots.some((root) => isWithin(real, root)) && !allowed.hidden.includes(real);
}

/**
 * The spec's path validation, with the roots above. Returns the real path; throws an
 * access-denied CommandError otherwise.
 */
export async function validatePath(ctx: PathContext, target: string): Promise<string> {
  const real = await resolveReal(target);
  const refused = refusalAt(await allowedRoots(ctx), real, target);
  if (refused) throw new CommandError(refused);
  return real;
}

/**
 * validatePath again, on a file already opened (what the path led to when it was opened), before
 * anything is read from it or written to it, with the roots the command read once (`allowedRoots`).
 * Throws the same access-denied CommandError.
 */
export async function validateOpened(allowed: AllowedRoots, handle: FileHandle, target: string): Promise<void> {
  const opened = await openedPath(handle);
  const refused = opened === null ? null : refusalAt(allowed, opened, target);
  if (refused) throw new CommandError(refused);
}

/** Why `target`, whose real path is `real`, may not be opened or made: null when it may. */
export function refusalAt(allowed: AllowedRoots, real: string, target: string): string | null {
  if (isAllowed(real, allowed)) return null;
  return `Access denied: ${target} is outside the allowed directories (the workspace directory and linked repositories).`;
}

/**
 * The entries of a listing (paths relative to `base`, or absolute) whose real path is allowed,
 * in their order. A symlink that leads outside, or through which a pattern reached outside, is
 * dropped; so is anything that cannot be resolved.
 */
export async function keepAllowed(ctx: PathContext, base: string, entries: readonly string[]): Promise<string[]> {
  const allowed = await allowedRoots(ctx);
  const keep = new Array<boolean>(entries.length).fill(false);
  const BATCH = 64;
  for (let start = 0; start < entries.length; start += BATCH) {
    await settleAll(
      entries.slice(start, start + BATCH).map(async (entry, i) => {
        const real = await resolveReal(path.resolve(base, entry)).catch(() => null);
        keep[start + i] = real !== null && isAllowed(real, allowed);
      }),
    );
  }
  return entries.filter((_, i) => keep[i]);
}

/** A path argument: absolute as given, relative ones joined to the workspace directory. */
export function fromWorkspaceDir(ctx: PathContext, given: string): string {
  return path.isAbsolute(given) ? given : path.join(ctx.config.workspaceDir, given);
}

/**
 * Why a folder (a real path) may never be linked, as the end of a sentence, or null when it may.
 * Folders inside the workspace folder are always fine: they are reachable already.
 */
export async function linkRefusal(config: AppConfig, real: string): Promise<string | null> {
  if (isWithin(real, await resolveReal(config.workspaceDir))) return null;
  if (real === path.parse(real).root) return 'it is the root of the file system';

  const dataFolders = [
    ['data folder', await resolveReal(config.home)],
    ['database folder', path.dirname(await resolveReal(config.databasePath))],
  ] as const;
  for (const [what, folder] of dataFolders) {
    if (isWithin(folder, real)) return real === folder ? `it is Agent Queue's ${what}` : `it holds Agent Queue's ${what} (${folder})`;
  }

  const { home, temp, system: systemDirs } = await machinePlaces();
  if (isWithin(home, real)) return real === home ? 'it is the home directory' : `it holds the home directory (${home})`;
  for (const name of HOME_SECRETS) {
    const secret = path.join(home, name);
    if (isWithin(real, secret)) return real === secret ? 'it holds credentials' : `it is inside ${secret}, which holds credentials`;
  }

  for (const system of systemDirs) {
    // The home directory may live in one (/root, /var/lib/…): its own rules above apply there.
    if (isWithin(real, home) && isWithin(home, system)) continue;
    // So may the temporary folder (/private/var/folders/… on macOS).
    if (isWithin(real, temp) && isWithin(temp, system) && temp !== path.parse(temp).root) continue;
    if (isWithin(real, system)) return real === system ? `it is a system directory` : `it is inside the system directory ${system}`;
    if (isWithin(system, real)) return `it holds the system directory ${system}`;
  }
  return null;
}

/**
 * Checks a folder someone asks to link (add_repo/add_workspace source=link) and returns its real
 * path. Outside the workspace folder a link widens what file commands reach, so it needs an
 * admin (`isAdmin` is the handler's rule for the actor) and must not be a refused place.
 */
export async function linkTargetCheck(config: AppConfig, given: string, isAdmin: boolean): Promise<string> {
  const real = await resolveReal(given);
  if (isWithin(real, await resolveReal(config.workspaceDir))) return real;
  if (!isAdmin) {
    throw new CommandError(
      `Only workspace admins can link a folder outside the workspace directory (${given}), because file commands can then read it. Ask an admin, or have one add your Slack user id to AQ_ADMINS.`,
    );
  }
  const why = await linkRefusal(config, real);
  if (why)
    throw new CommandError(
      `Cannot link ${given}: ${why}, and linking would let file commands read it. Link the project's own folder instead.`,
    );
  return real;
}
