import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readlink, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Opens `file` with `flags` and O_NONBLOCK, and keeps it only when what was opened is a regular
 * file. Checked on what was opened, not on the path beforehand: a named pipe an agent put in its
 * workspace (or swapped in after a check) would otherwise hold the read or write, and one of the
 * four threads every file operation of the process shares, for as long as nobody is at its other
 * end. A socket, and a pipe with no reader opened to write, fail to open at once (ENXIO).
 */
async function openIfRegular(file: string, flags: number): Promise<FileHandle | null> {
  const handle = await open(file, flags | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENXIO') return null;
    throw err;
  });
  if (!handle) return null;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return null;
}

/** Opens a file to read, or answers null when it is not a regular file. */
export function openRegularFile(file: string): Promise<FileHandle | null> {
  return openIfRegular(file, constants.O_RDONLY);
}

/** A file opened to write, or why not: not a regular file there, or its making refused. */
export type OpenedToWrite = { handle: FileHandle } | { notRegular: true } | { refused: string };

/**
 * Opens a file to write (nothing cut yet). A missing file is made only after `mayMake` has seen
 * where it would land (the real folder, as opened, and the file's name) and given no reason to
 * refuse: made by path, a folder of the path swapped for a link after the caller's check would
 * leave an empty file outside before the check of what was opened refused it. The file is made in
 * the folder opened, never through a link at its name.
 */
export async function openRegularFileToWrite(file: string, mayMake: (target: string) => Promise<string | null>): Promise<OpenedToWrite> {
  let target = file;
  for (let attempt = 0; attempt < MAX_OPEN_ATTEMPTS; attempt++) {
    const existing = await openIfRegular(target, constants.O_WRONLY).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (existing) return { handle: existing };
    if (existing === null) return { notRegular: true };
    const made = await makeInOpenedFolder(target, mayMake);
    if (made === 'taken') continue;
    if ('linkTo' in made) target = made.linkTo;
    else return made;
  }
  throw new Error(`${file} could not be opened to write: it kept changing, or its links lead on too far.`);
}

/** Tries to open or make a file, each a path's last link followed, before giving up. */
const MAX_OPEN_ATTEMPTS = 10;

/**
 * Makes `file` in its folder as opened. `taken` when a file appeared there meanwhile; `linkTo`
 * when a link to a file not made yet stands at its name: made where the link leads, as writing
 * through it by path would, once that place has been looked at in turn.
 */
async function makeInOpenedFolder(
  file: string,
  mayMake: (target: string) => Promise<string | null>,
): Promise<OpenedToWrite | { linkTo: string } | 'taken'> {
  const folder = await open(path.dirname(file), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const real = await openedPath(folder);
    const name = path.basename(file);
    const refused = await mayMake(real === null ? file : path.join(real, name));
    if (refused) return { refused };
    // /proc/self/fd/N is the folder opened, wherever its path leads by now.
    const where = real === null ? file : `/proc/self/fd/${folder.fd}/${name}`;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    const handle = await open(where, flags).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return null;
      throw err;
    });
    if (handle) return { handle };
    const link = await readlink(where).catch(() => null);
    return link === null ? 'taken' : { linkTo: path.resolve(real ?? path.dirname(file), link) };
  } finally {
    await folder.close();
  }
}

/**
 * Makes `folder` and the missing folders above it, each inside the one opened above it once
 * `mayMake` has seen where it would land and given no reason to refuse (the reason is answered).
 * Made by path (`mkdir -p`), a folder of the path swapped for a link after the caller's check would
 * lead the new folders out of the workspace.
 */
export async function makeFolders(folder: string, mayMake: (target: string) => Promise<string | null>): Promise<string | null> {
  const missing: string[] = [];
  let existing = folder;
  while (!(await isFolder(existing))) {
    const above = path.dirname(existing);
    if (above === existing) break;
    missing.unshift(path.basename(existing));
    existing = above;
  }
  if (missing.length === 0) return null;
  let handle = await open(existing, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const name of missing) {
      const real = await openedPath(handle);
      if (real === null) {
        await mkdir(folder, { recursive: true });
        return null;
      }
      const refused = await mayMake(path.join(real, name));
      if (refused) return refused;
      const where = `/proc/self/fd/${handle.fd}/${name}`;
      await mkdir(where).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      const next = await open(where, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      await handle.close();
      handle = next;
    }
    return null;
  } finally {
    await handle.close();
  }
}

async function isFolder(file: string): Promise<boolean> {
  return stat(file).then(
    (found) => found.isDirectory(),
    () => false,
  );
}

/**
 * Where an open file really is (Linux's /proc), or null where that cannot be asked. A path checked
 * and then opened can lead elsewhere by the time it is opened (an agent swaps a folder of it for a
 * link): the file opened is what to check before reading or writing it.
 */
export async function openedPath(handle: FileHandle): Promise<string | null> {
  return readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
}
