import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';

/*
 * The files of a repository's git folder that decide which programs git runs: its settings
 * (`core.fsmonitor`, filters, diff and merge drivers, credential helpers, `include.path`), its
 * hooks, the pointers that send git to another folder's settings (`commondir`, a `.git` file), and
 * the list of other repositories git takes objects from (`objects/info/alternates`).
 * The app runs git in agents' workspaces outside any sandbox, with its own secrets in reach, so an
 * agent must change git's state only by running git, never by writing these. Claude Code's shell
 * sandbox holds the same files read-only; the file tools and a whole ACP agent are held here.
 */

/** Entries of a `.git` folder an agent may not write: settings, hooks, and what points elsewhere. */
export const GIT_FOLDER_CONTROL_ENTRIES = [
  'config',
  'config.lock',
  'config.worktree',
  'config.worktree.lock',
  'commondir',
  'hooks',
  'info',
  'modules',
  'worktrees',
];

/** True when `relative` (a path below a workspace) names a `.git` folder or file, or lies inside one. */
export function isInsideGitFolder(relative: string): boolean {
  return relative.split(/[\\/]/).includes('.git');
}

/**
 * The existing control files and folders of the repository at `top` (none when it is not one):
 * the `.git` file of a linked worktree, else the control entries of its `.git` folder. Missing
 * ones cannot be held read-only without creating them; `commondir` is refused by the git runner
 * instead (plantedCommonDir).
 */
export function gitControlPaths(top: string): string[] {
  const dotGit = path.join(top, '.git');
  const info = statIfThere(dotGit);
  if (!info) return [];
  if (!info.isDirectory()) return [dotGit];
  return GIT_FOLDER_CONTROL_ENTRIES.map((entry) => path.join(dotGit, entry)).filter((entry) => statIfThere(entry));
}

/** What is at `file`, or null when nothing is: also when a part of the path is a file (`top` may be one). */
function statIfThere(file: string): Stats | null {
  try {
    return statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * The `commondir` file in the `.git` folder of `cwd` when it points anywhere but that folder.
 * Git writes one only in a linked worktree's own folder (under `.git/worktrees/`); in a
 * repository's `.git` it would make git read its settings (and so run programs) from wherever it
 * points. Claude Code leaves one there that points to the folder itself (".", held read-only for
 * its sandbox): that one changes nothing.
 */
export function plantedCommonDir(cwd: string): string | null {
  const dotGit = path.join(cwd, '.git');
  const file = path.join(dotGit, 'commondir');
  return readPlanted(file, (fd) => path.resolve(dotGit, readFileSync(fd, 'utf8').trim()) !== dotGit);
}

/** How much of an alternates file is read: enough to see whether it names anything. */
const ALTERNATES_READ_BYTES = 4096;

/**
 * The `objects/info/alternates` file in the `.git` folder of `cwd` when it names any folder. With
 * one, git takes the objects it lacks from the folders listed: a commit the agent made could then
 * name another repository's files (another project's, which the agent itself cannot read), and the
 * app's push would carry them to this project's remote. The app never makes one (it clones without
 * `--reference` or `--shared`); an empty one names nothing.
 */
export function plantedAlternates(cwd: string): string | null {
  const file = path.join(cwd, '.git', 'objects', 'info', 'alternates');
  return readPlanted(file, (fd, size) => {
    // Longer than what is read counts whatever it holds: blank lines could push a name past the read.
    if (size > ALTERNATES_READ_BYTES) return true;
    const start = Buffer.alloc(ALTERNATES_READ_BYTES);
    return (
      start
        .subarray(0, readSync(fd, start, 0, start.length, 0))
        .toString('latin1')
        .trim() !== ''
    );
  });
}

/**
 * `file` when something is there that is not a file or that `names` takes for a pointer
 * elsewhere; null when nothing is there.
 */
function readPlanted(file: string, names: (fd: number, size: number) => boolean): string | null {
  let fd: number;
  try {
    // Without waiting: a pipe planted there would otherwise hold this read, and the whole process, for ever.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd);
    // Anything but a file there is no git's doing either.
    if (!stats.isFile()) return file;
    return names(fd, stats.size) ? file : null;
  } finally {
    closeSync(fd);
  }
}
