import { GitError } from './git-errors';

/**
 * Why `name` is not a usable ref name (the rules of `git check-ref-format`), or null when it is.
 * A leading dash is refused too, so a name can never be read by git as an option.
 */
function refNameProblem(name: string): string | null {
  if (!name || name.trim() !== name) return 'it is empty or has surrounding spaces';
  if (name.startsWith('-')) return 'it starts with a dash';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in ref names, so we look for them.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'it contains a space, a control character or one of ~ ^ : ? * [ \\';
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return 'it contains "..", "@{" or "//"';
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name === '@')
    return 'it starts or ends with "/" or ends with "."';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock')))
    return 'a part of it starts with "." or ends with ".lock"';
  if (name.length > 200) return 'it is longer than 200 characters';
  return null;
}

/** `git check-ref-format --branch` plus "no leading dash"; checked before a name reaches git. */
export function assertValidBranchName(name: string): void {
  const problem = refNameProblem(name) ?? (name === 'HEAD' ? 'HEAD is not a branch' : null);
  if (problem) throw new GitError(`Invalid branch name ${JSON.stringify(name)}: ${problem}.`);
}

export function isValidBranchName(name: string): boolean {
  try {
    assertValidBranchName(name);
    return true;
  } catch {
    return false;
  }
}

/** A ref such as `main`, `origin/main` or `HEAD`: the same rules, HEAD allowed. */
export function assertValidRefName(ref: string): void {
  const problem = refNameProblem(ref);
  if (problem) throw new GitError(`Invalid ref ${JSON.stringify(ref)}: ${problem}.`);
}

/** Remote names are kept to one plain word (`origin`, `upstream`, `my-fork`). */
export function assertValidRemoteName(remote: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(remote) || remote.endsWith('.lock')) {
    throw new GitError(`Invalid remote name ${JSON.stringify(remote)}.`);
  }
}

/** A task's branch: `<task-id>/<slug of the title, at most 40 characters>`, a valid branch name. */
export function branchNameForTask(taskId: string, title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const id = taskId
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/\.lock$/, '')
    .replace(/^[-.]+|[-.]+$/g, '');
  const name = [id || 'task', slug].filter(Boolean).join('/');
  assertValidBranchName(name);
  return name;
}
