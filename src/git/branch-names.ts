import { GitError } from './git-errors';

/**
 * The rules of `git check-ref-format --branch`, plus "no leading dash" so a name can never be
 * read as an option. Checked before any user-given name reaches git.
 */
export function assertValidBranchName(name: string): void {
  const problem =
    !name || name.trim() !== name
      ? 'it is empty or has surrounding spaces'
      : name.startsWith('-')
        ? 'it starts with a dash'
        : /[\x00-\x20\x7f~^:?*[\\]/.test(name)
          ? 'it contains a space, a control character or one of ~ ^ : ? * [ \\'
          : name.includes('..') || name.includes('@{') || name.includes('//')
            ? 'it contains "..", "@{" or "//"'
            : name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name === '@'
              ? 'it starts or ends with "/" or ends with "."'
              : name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))
                ? 'a part of it starts with "." or ends with ".lock"'
                : null;
  if (problem) throw new GitError(`Invalid branch name ${JSON.stringify(name)}: ${problem}.`);
}

/** A task's branch: `<task-id>/<slug of the title>`, a valid ref of at most ~60 characters. */
export function branchNameForTask(taskId: string, title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const name = slug ? `${taskId}/${slug}` : taskId;
  assertValidBranchName(name);
  return name;
}
