import { assertValidRefName } from './branch-names';
import { GitError } from './git-errors';
import type { GitManager } from './git-manager';
import { refSha } from './repo-state';
import { settleAll } from '../util/settle-all';

async function mergeBase(git: GitManager, path: string, base: string): Promise<string> {
  assertValidRefName(base);
  if (!(await refSha(git, path, base))) throw new GitError(`Branch '${base}' not found.`);
  const out = await git.exec(path, ['merge-base', base, 'HEAD'], { okCodes: [1] });
  if (out.code !== 0 || !out.stdout.trim()) throw new GitError(`'${base}' and HEAD have no common history.`);
  return out.stdout.trim();
}

/**
 * Without a base: unstaged changes (`git diff`). With a base: the merge base with `base` against
 * the working tree, so commits on this branch and uncommitted edits show, while commits `base`
 * gained since do not show up as reversed noise. Untracked files are not part of a diff.
 */
export async function workingDiff(git: GitManager, path: string, base?: string): Promise<string> {
  if (!base) return git.run(path, ['diff', '--no-ext-diff']);
  return git.run(path, ['diff', '--no-ext-diff', await mergeBase(git, path, base), '--']);
}

/** What `branch` changed since it left `defaultBranch`: `git diff default...branch`. */
export async function diffAgainstDefault(git: GitManager, path: string, branch: string, defaultBranch: string): Promise<string> {
  assertValidRefName(branch);
  assertValidRefName(defaultBranch);
  for (const ref of [branch, defaultBranch]) {
    if (!(await refSha(git, path, ref))) throw new GitError(`Branch '${ref}' not found.`);
  }
  return git.run(path, ['diff', '--no-ext-diff', `${defaultBranch}...${branch}`, '--']);
}

/** Names of files changed since the merge base with `base`: committed, uncommitted and untracked. */
export async function changedFiles(git: GitManager, path: string, base: string): Promise<string[]> {
  const since = await mergeBase(git, path, base);
  const [tracked, untracked] = await settleAll([
    git.run(path, ['diff', '--name-only', '-z', since, '--']),
    git.run(path, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  const names = [...tracked.split('\0'), ...untracked.split('\0')].filter(Boolean);
  return [...new Set(names)].sort();
}
