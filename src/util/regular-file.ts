import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/**
 * Opens a file to read only when it is a regular file, or answers null. Opened without waiting
 * and checked on what was opened, not on the path beforehand: a named pipe an agent put in its
 * workspace (or swapped in after a check) would otherwise hold the read, and one of the four
 * threads every file operation of the process shares, for as long as nobody writes to it.
 */
export async function openRegularFile(file: string): Promise<FileHandle | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    // A socket cannot be opened at all.
    if (err.code === 'ENXIO') return null;
    throw err;
  });
  if (!handle) return null;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return null;
}

/**
 * Opens a file to write (made when missing, nothing cut yet), or answers null when what is there
 * is not a regular file: a pipe with no reader fails at once instead of holding the write.
 */
export async function openRegularFileToWrite(file: string): Promise<FileHandle | null> {
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENXIO') return null;
    throw err;
  });
  if (!handle) return null;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return null;
}
