import { DIFF_READ_BYTES } from '../../git/diffs';
import type { Rendered } from './common';
import { plural } from './cards-format';
import { card, facts, item } from './cards-kit';
import { bold, link, mono, txt, type Line } from './text';
import type { CommandAndResult, Result } from './result-types';

const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const safeName = (v: unknown) =>
  s(v)
    .replace(/[^\w.-]+/g, '-')
    .slice(0, 60) || 'output';

/** Headlines for git commands that change something. */
const GIT_ACTIONS: Record<string, string> = {
  git_commit: 'Committed',
  commit_changes: 'Committed',
  git_push: 'Pushed',
  push_branch: 'Pushed',
  git_create_branch: 'Branch created',
  create_branch: 'Branch created',
  git_merge: 'Merged',
  merge_branch: 'Merged',
  git_create_pr: 'Pull request opened',
  git_checkout: 'Switched branch',
  checkout_branch: 'Switched branch',
};

export const GIT_COMMANDS = [
  'get_git_status',
  'git_log',
  'git_diff',
  'get_task_diff',
  'git_changed_files',
  'git_branch',
  'git_commit',
  'commit_changes',
  'git_push',
  'push_branch',
  'git_create_branch',
  'create_branch',
  'git_merge',
  'merge_branch',
  'git_create_pr',
  'git_checkout',
  'checkout_branch',
] as const;
type GitCommands = (typeof GIT_COMMANDS)[number];

/** Where a git result is about: its repository, else its project (empty when it names neither). */
function whereOf(r: Result<GitCommands>): string {
  if ('repo_id' in r && r.repo_id) return r.repo_id;
  return 'project_id' in r && r.project_id ? r.project_id : '';
}

type GitActionCommands = Exclude<GitCommands, 'get_git_status' | 'git_log' | 'git_diff' | 'get_task_diff' | 'git_changed_files'>;

/** What a git command that changes something did, in the card's terms. */
interface GitAction {
  /** The branch it worked on (pushed, created, merged, switched to). */
  branch?: string | null;
  /** The branch merged into, or a pull request's base. */
  into?: string;
  /** Its own sentence, or the commit's message. */
  note?: string;
  nothing?: boolean;
  /** A merge that conflicted, and was aborted. */
  conflicts?: string[];
  prUrl?: string;
  warning?: string;
}

/** Each command's result read by its own keys. */
function actionOf(...[command, r]: CommandAndResult<GitActionCommands>): GitAction {
  switch (command) {
    case 'git_commit':
      return r.committed ? { note: r.commit_message } : { nothing: true, note: r.message };
    case 'commit_changes':
      return 'commit_message' in r ? { note: r.commit_message, warning: r.warning } : { nothing: true, note: r.message };
    case 'git_push':
      return { branch: r.pushed };
    case 'git_create_branch':
      return { branch: r.created_branch };
    case 'git_merge':
      return r.merged ? { branch: r.branch, into: r.into } : { into: r.into, note: r.message, conflicts: r.conflicting_files };
    case 'merge_branch':
      return 'conflicting_files' in r
        ? { branch: r.branch, into: r.target, note: r.message, conflicts: r.conflicting_files, warning: r.warning }
        : { branch: r.branch, into: r.target, warning: r.warning };
    case 'git_create_pr':
      return { branch: r.branch, into: r.base, prUrl: r.pr_url };
    case 'git_checkout':
      return { branch: r.new_branch, note: r.message };
    case 'git_branch':
      return 'created' in r ? { branch: r.created, note: r.message } : {};
    default:
      // create_branch, push_branch, checkout_branch: the branch, and a warning about running tasks.
      return { branch: r.branch, warning: 'warning' in r ? r.warning : undefined };
  }
}

/** Every git result: status per repo, log, diff, changed files, branches, and what an action did. */
export function gitCard(...[command, r]: CommandAndResult<GitCommands>): Rendered {
  const where = whereOf(r);
  if (command === 'get_git_status') {
    const lines: Line[] = [];
    for (const repo of r.repos) {
      if (repo.error !== undefined) {
        lines.push([txt('🔴 '), bold(repo.repo_id), txt(`  ${repo.error}`)]);
        continue;
      }
      const clean = repo.status === '(clean)';
      lines.push([txt(clean ? '🟢 ' : '🟡 '), bold(repo.repo_id), txt('  on '), mono(repo.branch), txt(clean ? ' · clean' : '')]);
      if (!clean)
        lines.push(
          ...repo.status
            .split('\n')
            .slice(0, 15)
            .map((l): Line => [txt('    '), mono(l)]),
        );
      lines.push(...repo.recent_commits.slice(0, 5).map((c): Line => [txt(`    ${c}`)]));
    }
    return card({ icon: '🌿', title: 'Git status', subject: r.project_name ?? r.project_id, lines });
  }
  if (command === 'git_log')
    return card({
      icon: '🌿',
      title: 'Recent commits',
      subject: where,
      lines: [[txt('on '), mono(r.branch)]],
      code: { label: 'log', text: r.log, filename: `${safeName(where)}-log.txt` },
    });
  if (command === 'git_diff' || command === 'get_task_diff') {
    // git_diff names its base_branch; get_task_diff, the task's repository's default branch, as base.
    const against = command === 'get_task_diff' ? r.base : r.base_branch;
    const branch = 'branch' in r ? r.branch : null;
    return card({
      icon: '🌿',
      title: 'Changes',
      subject: where || branch,
      lines: [
        facts([
          ['against', against],
          ['branch', branch],
        ]),
      ],
      code: { label: 'diff', text: 'diff' in r ? s(r.diff) : '', filename: `${safeName(where || branch)}.diff` },
      ...('diff_cut' in r &&
        r.diff_cut && {
          footer: `This diff is larger than ${DIFF_READ_BYTES / 1024 / 1024} MB: these are its first lines. ${
            command === 'get_task_diff' ? '`summary=true` counts every file.' : '`git_changed_files` lists every file.'
          }`,
        }),
    });
  }
  if (command === 'git_changed_files') {
    const files = r.files;
    return card({
      icon: '🌿',
      title: `${plural(files.length, 'file')} changed`,
      subject: where,
      lines: [[txt('against '), mono(r.base_branch)], ...files.slice(0, 60).map((f): Line => [txt('• '), mono(f)])],
      ...(files.length > 60 && { footer: `${files.length - 60} more not listed.` }),
    });
  }
  if (command === 'git_branch' && 'branches' in r && r.branches) {
    const current = r.current_branch;
    return card({
      icon: '🌿',
      title: `${plural(r.branches.length, 'branch', 'branches')}`,
      subject: where,
      lines: r.branches.slice(0, 60).map((b): Line => [txt(b === current ? '➜ ' : '   '), mono(b)]),
    });
  }
  const done = actionOf(...([command, r] as CommandAndResult<GitActionCommands>));
  const conflicts = done.conflicts ?? [];
  const title = done.conflicts
    ? 'Not merged: conflicts'
    : done.nothing
      ? 'Nothing to commit'
      : (GIT_ACTIONS[command] ?? (command === 'git_branch' ? 'Branch created' : 'Done'));
  const lines: Line[] = [
    facts([
      ['repo', 'repo_id' in r ? r.repo_id : null],
      ['project', 'repo_id' in r || !('project_id' in r) ? null : r.project_id],
      ['branch', done.branch],
      ['into', done.into],
    ]),
  ];
  if (done.note) lines.push([txt(done.note)]);
  lines.push(...conflicts.slice(0, 30).map((f): Line => [txt('• '), mono(f)]));
  if (conflicts.length > 30) lines.push([txt(`${plural(conflicts.length - 30, 'more file')} in conflict.`)]);
  if (done.prUrl) lines.push([txt('Pull request: '), link(done.prUrl)]);
  if (done.warning) lines.push([txt(`⚠️ ${done.warning}`)]);
  return card({ icon: done.conflicts ? '⚠️' : done.nothing ? 'ℹ️' : '🌿', title, subject: where, lines });
}

export const FILES_COMMANDS = ['read_file', 'run_command', 'search_files', 'list_directory'] as const;
type FilesCommands = (typeof FILES_COMMANDS)[number];

/** Files and commands run in a workspace. */
export function filesCard(...[command, r]: CommandAndResult<FilesCommands>): Rendered {
  if (command === 'read_file')
    return card({
      icon: '📄',
      title: 'File',
      subject: r.path,
      code: { label: 'file', text: s(r.content), filename: safeName(s(r.path).split('/').pop()) },
    });
  if (command === 'run_command') {
    const ok = Number(r.returncode) === 0;
    const output =
      [s(r.stdout).trimEnd(), s(r.stderr).trimEnd() ? `--- stderr ---\n${s(r.stderr).trimEnd()}` : ''].filter(Boolean).join('\n') ||
      '(no output)';
    return card({
      icon: ok ? '✅' : '🔴',
      title: ok ? 'Command finished' : `Command exited with ${s(r.returncode)}`,
      code: { label: 'output', text: output, filename: 'output.txt' },
    });
  }
  if (command === 'search_files')
    return card({
      icon: '🔎',
      title: 'Search results',
      subject: r.mode,
      code: { label: 'results', text: s(r.results), filename: 'search.txt' },
    });
  const dirs = r.directories ?? [];
  const files = r.files ?? [];
  return card({
    icon: '📂',
    title: 'Folder',
    subject: `${s(r.workspace_name)}${s(r.path)}`,
    lines: [
      ...dirs.slice(0, 50).map((d) => item(`${d}/`, undefined, [], '📁')),
      ...files.slice(0, 80).map((f) => item(f.name, undefined, [['', `${s(f.size)} bytes`]], '📄')),
    ],
    ...(dirs.length > 50 || files.length > 80 ? { footer: 'Some entries are not listed; look inside a subfolder with `path=`.' } : {}),
  });
}
