import { posix } from 'node:path';
import type { GitManager } from './git-manager';
import { refSha } from './repo-state';
import { settleAll } from '../util/settle-all';

/** What a workspace changed against its base: the commit it is at, and every path it touched. */
export interface TouchedFiles {
  /** HEAD's commit, or null in a repository without commits. */
  head: string | null;
  /** Paths relative to the repository root, `/`-separated, sorted, without duplicates. */
  files: string[];
}

/** A path as git prints it, made comparable across workspaces and machines. */
export function normalisePath(file: string): string {
  const clean = posix.normalize(file.replace(/\\/g, '/')).replace(/^\.\//, '');
  return clean.endsWith('/') ? clean.slice(0, -1) : clean;
}

/**
 * The paths of `git status --porcelain=v2 -z` (tracked changes, renames with both names, conflicts
 * and untracked files) and the branch's commit from its `# branch.oid` header: one git process
 * tells both what is uncommitted and whether HEAD moved.
 */
export function parseStatusV2(output: string): { head: string | null; files: string[] } {
  const fields = output.split('\0');
  let head: string | null = null;
  const files: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (field.startsWith('# branch.oid ')) {
      const oid = field.slice('# branch.oid '.length).trim();
      head = /^[0-9a-f]{7,64}$/.test(oid) ? oid : null;
    } else if (field.startsWith('1 ')) files.push(afterSpaces(field, 8));
    else if (field.startsWith('2 ')) {
      files.push(afterSpaces(field, 9));
      files.push(fields[++i] ?? '');
    } else if (field.startsWith('u ')) files.push(afterSpaces(field, 10));
    else if (field.startsWith('? ')) files.push(field.slice(2));
  }
  return { head, files: files.filter(Boolean) };
}

/** The rest of a line after its first `count` space-separated fields (a path may hold spaces). */
function afterSpaces(line: string, count: number): string {
  let at = 0;
  for (let n = 0; n < count; n++) {
    at = line.indexOf(' ', at) + 1;
    if (at === 0) return '';
  }
  return line.slice(at);
}

/** Sorted, normalised and without duplicates. */
export function normaliseAll(paths: Iterable<string>): string[] {
  return [...new Set([...paths].map(normalisePath).filter((p) => p !== '' && p !== '.'))].sort();
}

/** `origin/<default>` when the clone has it (what the branch will land on), else the local branch. */
export async function baseRef(git: GitManager, path: string, defaultBranch: string): Promise<string | null> {
  for (const ref of [`refs/remotes/origin/${defaultBranch}`, `refs/heads/${defaultBranch}`]) {
    if (await refSha(git, path, ref)) return ref;
  }
  return null;
}

/** The workspace's uncommitted paths and HEAD, from one `git status`. */
export async function workspaceStatus(git: GitManager, path: string): Promise<{ head: string | null; files: string[] }> {
  return parseStatusV2(await git.run(path, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all']));
}

/** Paths committed on HEAD since it left `base` (`git diff --name-only base...HEAD`). */
export async function committedSince(git: GitManager, path: string, base: string): Promise<string[]> {
  const out = await git.exec(path, ['diff', '--name-only', '--no-renames', '-z', `${base}...HEAD`, '--'], { okCodes: [128] });
  // No common history with the base (an orphan branch): nothing can be said about committed files.
  return out.code === 0 ? out.stdout.split('\0').filter(Boolean) : [];
}

/**
 * Every file a task's workspace touched: committed on its branch against the base (`base...HEAD`)
 * plus uncommitted changes (`git status`). `base` null (no default branch yet) counts only the
 * uncommitted ones.
 */
export async function touchedFiles(git: GitManager, path: string, base: string | null): Promise<TouchedFiles> {
  const [status, committed] = await settleAll([workspaceStatus(git, path), base ? committedSince(git, path, base) : []]);
  return { head: status.head, files: normaliseAll([...committed, ...status.files]) };
}
