import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { CommandError, type CommandContext } from './catalog';

/**
 * The real path of `target` even when it does not exist yet: the deepest existing ancestor is
 * resolved (symlinks included) and the rest re-appended, so `..` and symlinked parents are
 * judged by where they really lead.
 */
export async function resolveReal(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length ? path.join(real, ...missing.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** Whether `child` is `parent` or inside it, compared segment by segment (`/ws-evil` is not in `/ws`). */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..');
}

/**
 * The spec's path validation: allowed when the real path lies in the workspace directory or in a
 * known repo's source path. Returns the real path; throws an access-denied CommandError otherwise.
 */
export async function validatePath(ctx: CommandContext, target: string): Promise<string> {
  const real = await resolveReal(target);
  if (isWithin(real, await resolveReal(ctx.config.workspaceDir))) return real;
  for (const source of await ctx.db.repos.sourcePaths()) {
    if (isWithin(real, await resolveReal(source))) return real;
  }
  throw new CommandError(
    `Access denied: ${target} is outside the allowed directories (the workspace directory and linked repositories).`,
  );
}

/** A path argument: absolute as given, relative ones joined to the workspace directory. */
export function fromWorkspaceDir(ctx: CommandContext, given: string): string {
  return path.isAbsolute(given) ? given : path.join(ctx.config.workspaceDir, given);
}
