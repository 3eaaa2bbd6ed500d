import { assertValidRefName } from './branch-names';
import type { DiffSummary } from './diff-summary';
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
 * The most of a diff the app reads: the rest is left unread rather than held in memory and sent
 * on (Slack shows 1 MB of it, the chat model 30,000 characters). `diffStatsAgainstDefault` counts it all.
 */
export const DIFF_READ_BYTES = 4 * 1024 * 1024;

/** A diff as read: its text, and whether it was longer than DIFF_READ_BYTES (then its first whole lines). */
export interface ReadDiff {
  text: string;
  cut: boolean;
}

async function readDiff(git: GitManager, path: string, args: string[]): Promise<ReadDiff> {
  const out = await git.exec(path, ['diff', '--no-ext-diff', ...args], { maxOutput: DIFF_READ_BYTES });
  return { text: out.stdout, cut: out.cut === true };
}

/**
 * Without a base: unstaged changes (`git diff`). With a base: the merge base with `base` against
 * the working tree, so commits on this branch and uncommitted edits show, while commits `base`
 * gained since do not show up as reversed noise. Untracked files are not part of a diff.
 */
export async function workingDiff(git: GitManager, path: string, base?: string): Promise<ReadDiff> {
  if (!base) return readDiff(git, path, []);
  return readDiff(git, path, [await mergeBase(git, path, base), '--']);
}

async function requireBranches(git: GitManager, path: string, branch: string, defaultBranch: string): Promise<void> {
  assertValidRefName(branch);
  assertValidRefName(defaultBranch);
  for (const ref of [branch, defaultBranch]) {
    if (!(await refSha(git, path, ref))) throw new GitError(`Branch '${ref}' not found.`);
  }
}

/** What `branch` changed since it left `defaultBranch`: `git diff default...branch`. */
export async function diffAgainstDefault(git: GitManager, path: string, branch: string, defaultBranch: string): Promise<ReadDiff> {
  await requireBranches(git, path, branch, defaultBranch);
  return readDiff(git, path, [`${defaultBranch}...${branch}`, '--']);
}

/**
 * The files `branch` changed since it left `defaultBranch`, with the lines each adds and removes
 * (`git diff --numstat`, however large the diff; a binary file counts 0 and 0, a renamed one
 * under its new path).
 */
export async function diffStatsAgainstDefault(git: GitManager, path: string, branch: string, defaultBranch: string): Promise<DiffSummary> {
  await requireBranches(git, path, branch, defaultBranch);
  const out = await git.run(path, ['diff', '--numstat', '-z', `${defaultBranch}...${branch}`, '--']);
  // Each file is "added<TAB>removed<TAB>path<NUL>"; a rename leaves the path empty and follows with "old<NUL>new<NUL>".
  const fields = out.split('\0');
  const files: DiffSummary['files'] = [];
  for (let i = 0; i < fields.length; i++) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(fields[i]);
    if (!match) continue;
    let file = match[3];
    if (file === '') {
      file = fields[i + 2] ?? '';
      i += 2;
    }
    files.push({ path: file, added: match[1] === '-' ? 0 : Number(match[1]), removed: match[2] === '-' ? 0 : Number(match[2]) });
  }
  return {
    files,
    insertions: files.reduce((n, f) => n + f.added, 0),
    deletions: files.reduce((n, f) => n + f.removed, 0),
  };
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
