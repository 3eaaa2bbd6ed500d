import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { logsDir } from '../util/app-home-files';

/** Past this size the log is moved to `aq.log.1` (replacing the older one) and a new one begun. */
export const LOG_FILE_MAX_BYTES = 1024 * 1024;

/** Where `aq` writes what people do not read: the details behind "Something went wrong". */
export function cliLogPath(home: string): string {
  return path.join(logsDir(home), 'aq.log');
}

/**
 * A log that appends timestamped lines to `file`, keeping at most two files of `maxBytes`.
 * Written synchronously: lines are rare (unexpected failures) and `aq` may exit right after
 * answering, which would drop a pending asynchronous write. A log that cannot be written is
 * not a reason to fail the command, so write errors are ignored.
 */
export function fileLog(file: string, maxBytes = LOG_FILE_MAX_BYTES): (message: string) => void {
  return (message) => {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
      if (size > 0 && size >= maxBytes) renameSync(file, `${file}.1`);
      appendFileSync(file, `${new Date().toISOString()} ${message}\n`);
    } catch {
      // The command's answer matters more than its log line.
    }
  };
}
