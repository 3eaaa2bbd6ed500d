import { GitError } from '../git/git-errors';
import { CommandError } from './catalog';
import { DatabaseUnreachableError } from '../db/connection-errors';

/**
 * The one place that decides what an error says to people. Errors written for people
 * (CommandError, and GitError, whose message is already one sentence) pass through; a file
 * system failure is told by what went wrong and where; anything else (a driver error with its
 * SQL, a TypeError, a stack) becomes a plain sentence, and its details belong in the app's log.
 */
export function errorText(err: unknown, commandName?: string): string {
  if (isForPeople(err)) return err.message;
  const fileProblem = fileSystemSentence(err);
  if (fileProblem) return fileProblem;
  const what = commandName ? `running ${commandName}` : 'here';
  return `Something went wrong ${what}; the details are in the app's log.`;
}

/** Errors whose message was written to be read by the person who asked. */
export function isForPeople(err: unknown): err is Error {
  return (err instanceof CommandError || err instanceof GitError || err instanceof DatabaseUnreachableError) && err.message.trim() !== '';
}

const FILE_SYSTEM_SENTENCES: Record<string, (where: string) => string> = {
  ENOENT: (where) => `Not found: ${where}.`,
  EACCES: (where) => `Permission denied: ${where}.`,
  EPERM: (where) => `Not permitted: ${where}.`,
  EEXIST: (where) => `Already exists: ${where}.`,
  ENOTDIR: (where) => `Not a folder: ${where}.`,
  EISDIR: (where) => `A folder, not a file: ${where}.`,
  ENOTEMPTY: (where) => `The folder is not empty: ${where}.`,
  ENAMETOOLONG: () => 'The file name or path is too long.',
  ENOSPC: () => 'The disk is full.',
  EROFS: (where) => `The file system is read-only: ${where}.`,
};

/**
 * Node's file system errors carry a code, a syscall and a path; say what happened, without the
 * code. Checked by shape, not `instanceof Error`: errors from Node's core may come from another realm.
 */
function fileSystemSentence(err: unknown): string | null {
  if (typeof err !== 'object' || err === null) return null;
  const { code, syscall, path } = err as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string') return null;
  const say = FILE_SYSTEM_SENTENCES[code];
  return say ? say(typeof path === 'string' ? path : 'the file') : null;
}

/**
 * `errorText` for a failure kept inside a result (one item of many failed, the rest went on):
 * the sentence goes in the result, the details of an unexpected error to the log.
 */
export function loggedErrorText(err: unknown, log: (message: string) => void, commandName: string): string {
  if (!isForPeople(err)) log(`Command ${commandName}: ${errorDetails(err)}`);
  return errorText(err, commandName);
}

/** The full story of an unexpected error, for the log only. */
export function errorDetails(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'stack' in err && typeof err.stack === 'string') return err.stack;
  return String(err);
}
