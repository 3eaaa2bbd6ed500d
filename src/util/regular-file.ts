import { constants } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';

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

/** Opens a file to write (made when missing, nothing cut yet), or answers null when what is there is not a regular file. */
export function openRegularFileToWrite(file: string): Promise<FileHandle | null> {
  return openIfRegular(file, constants.O_WRONLY | constants.O_CREAT);
}

/**
 * Where an open file really is (Linux's /proc), or null where that cannot be asked. A path checked
 * and then opened can lead elsewhere by the time it is opened (an agent swaps a folder of it for a
 * link): the file opened is what to check before reading or writing it.
 */
export async function openedPath(handle: FileHandle): Promise<string | null> {
  return readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
}
