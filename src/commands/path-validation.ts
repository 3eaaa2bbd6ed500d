import { readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { CommandError, type CommandContext } from './catalog';

const MAX_LINKS = 40;

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

/** Whether `child` is `parent` or inside it, compared segment by segment (`/ws-evil` is not in `/ws`). */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  if (relative === '') return true;
  // A first segment of exactly `..` leaves the parent; a name like `..notes` does not.
  return !path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..';
}

/**
 * The spec's path validation: allowed when the real path lies in the workspace directory or in a
 * known repo's source path. Returns the real path; throws an access-denied CommandError otherwise.
 */
export async function validatePath(ctx: CommandContext, target: string): Promise<string> {
  const real = await resolveReal(target);
  if (isWithin(real, await resolveReal(ctx.config.workspaceDir))) return real;
  for (const source of await ctx.db.repos.sourcePaths()) {
    // A repo whose source path cannot be resolved (a link loop) allows nothing, and blocks nothing.
    const allowed = await resolveReal(source).catch(() => null);
    if (allowed && isWithin(real, allowed)) return real;
  }
  throw new CommandError(
    `Access denied: ${target} is outside the allowed directories (the workspace directory and linked repositories).`,
  );
}

/** A path argument: absolute as given, relative ones joined to the workspace directory. */
export function fromWorkspaceDir(ctx: CommandContext, given: string): string {
  return path.isAbsolute(given) ? given : path.join(ctx.config.workspaceDir, given);
}
