import { access, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { GitManager } from './git-manager';

/** Questions about a repository's state that sync and the task-branch steps share. */

/** The commit a ref points at, or null when there is no such ref. */
export async function refSha(git: GitManager, path: string, ref: string): Promise<string | null> {
  const out = await git.exec(path, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { okCodes: [1, 128] });
  return out.code === 0 ? out.stdout.trim() : null;
}

/** Which of some full ref names exist, and which of them (a local branch) is checked out. */
export interface RefsPresent {
  present: Set<string>;
  /** The one of the refs HEAD is on, or null (HEAD is elsewhere, detached, or on a branch without commits). */
  checkedOut: string | null;
}

/**
 * Several "does this ref exist, and am I on it" questions in one git process
 * (`for-each-ref`), where asking them one by one costs a process each.
 */
export async function refsPresent(git: GitManager, path: string, refs: string[]): Promise<RefsPresent> {
  const wanted = new Set(refs);
  const present = new Set<string>();
  let checkedOut: string | null = null;
  const out = await git.run(path, ['for-each-ref', '--format=%(HEAD)%(refname)', ...refs]);
  for (const line of out.split('\n')) {
    const ref = line.slice(1);
    // A pattern also matches refs below it (refs/heads/main/x): keep exact names only.
    if (!wanted.has(ref)) continue;
    present.add(ref);
    if (line.startsWith('*')) checkedOut = ref;
  }
  return { present, checkedOut };
}

/** Whether `ancestor` is contained in `descendant`. */
export function isAncestor(git: GitManager, path: string, ancestor: string, descendant: string): Promise<boolean> {
  return git.test(path, ['merge-base', '--is-ancestor', ancestor, descendant]);
}

/** A linked worktree (`git worktree add`) has its own git dir inside the common one. */
export async function isWorktree(git: GitManager, path: string): Promise<boolean> {
  const out = await git.run(path, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir']);
  const [gitDir, common] = out.split('\n').map((l) => l.trim());
  return gitDir !== common;
}

/** Branch name → the worktree path it is checked out in, over every worktree of the repository. */
export async function checkedOutBranches(git: GitManager, path: string): Promise<Map<string, string>> {
  const out = await git.run(path, ['worktree', 'list', '--porcelain']);
  const map = new Map<string, string>();
  let current = '';
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    else if (line.startsWith('branch refs/heads/')) map.set(line.slice('branch refs/heads/'.length), current);
  }
  return map;
}

/** The files git leaves in a working tree's git folder while an operation is half done. */
const OPERATION_MARKERS: ReadonlyArray<[file: string, operation: string]> = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
];

/**
 * Where the markers of `path` are, without asking git when it is plain: `path/.git` is a folder
 * (a repository's top, not a linked worktree's `.git` file) and no GIT_DIR sends git elsewhere.
 * The markers belong to the working tree, so a `commondir` would not move them.
 */
async function markerPaths(git: GitManager, path: string): Promise<string[]> {
  const dotGit = join(path, '.git');
  const plain =
    git.env.GIT_DIR === undefined &&
    (await stat(dotGit).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  if (plain) return OPERATION_MARKERS.map(([file]) => join(dotGit, file));
  const out = await git.run(path, ['rev-parse', ...OPERATION_MARKERS.flatMap(([file]) => ['--git-path', file])]);
  return out
    .split('\n')
    .slice(0, OPERATION_MARKERS.length)
    .map((line) => resolve(path, line.trim()));
}

/** A merge, rebase, cherry-pick or revert left half done in this working tree, if any. */
export async function operationInProgress(git: GitManager, path: string): Promise<string | null> {
  const paths = await markerPaths(git, path);
  for (let i = 0; i < OPERATION_MARKERS.length; i++) {
    const found = await access(paths[i]).then(
      () => true,
      () => false,
    );
    if (found) return OPERATION_MARKERS[i][1];
  }
  return null;
}

/**
 * Before a branch is moved to `target` (a reset to origin), commits it has that `target` lacks
 * are kept on a backup branch, so nothing unpushed is ever lost. Returns the backup's name.
 */
export async function keepUnpushedCommits(git: GitManager, path: string, branch: string, target: string): Promise<string | null> {
  const sha = await refSha(git, path, `refs/heads/${branch}`);
  if (!sha || (await isAncestor(git, path, sha, target))) return null;
  const backup = `agent-queue/backup/${branch}-${sha.slice(0, 10)}`;
  if (!(await refSha(git, path, `refs/heads/${backup}`))) await git.run(path, ['branch', backup, sha]);
  return backup;
}

export async function hasRemote(git: GitManager, path: string, remote = 'origin'): Promise<boolean> {
  return (await git.getRemoteUrl(path, remote)) !== null;
}
