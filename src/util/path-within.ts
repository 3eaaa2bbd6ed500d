import path from 'node:path';

/**
 * Whether `child` is `parent` or inside it, compared segment by segment (`/ws-evil` is not in
 * `/ws`, and a folder named `..notes` is inside). Paths as given: resolve symlinks first where
 * they matter (commands/path-validation.ts `resolveReal`).
 */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  if (relative === '') return true;
  // A first segment of exactly `..` leaves the parent; a name like `..notes` does not.
  return !path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..';
}
