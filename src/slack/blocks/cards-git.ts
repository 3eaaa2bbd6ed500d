import type { Rendered } from './common';
import { plural } from './cards-format';
import { card, facts, item } from './cards-kit';
import { bold, link, mono, txt, type Line } from './text';
import type { AnyShape, Result } from './result-types';

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

/** Every git result: status per repo, log, diff, changed files, branches, and what an action did. */
export function gitCard(command: GitCommands, r: AnyShape<Result<GitCommands>>): Rendered {
  const where = s(r.repo_id || r.project_id);
  if (command === 'get_git_status') {
    const lines: Line[] = [];
    for (const repo of r.repos ?? []) {
      if (repo.error) {
        lines.push([txt('🔴 '), bold(repo.repo_id), txt(`  ${s(repo.error)}`)]);
        continue;
      }
      const clean = repo.status === '(clean)';
      lines.push([txt(clean ? '🟢 ' : '🟡 '), bold(repo.repo_id), txt('  on '), mono(repo.branch), txt(clean ? ' · clean' : '')]);
      if (!clean)
        lines.push(
          ...s(repo.status)
            .split('\n')
            .slice(0, 15)
            .map((l): Line => [txt('    '), mono(l)]),
        );
      const commits = repo.recent_commits ?? [];
      lines.push(...commits.slice(0, 5).map((c): Line => [txt(`    ${c}`)]));
    }
    return card({ icon: '🌿', title: 'Git status', subject: r.project_name ?? r.project_id, lines });
  }
  if (command === 'git_log')
    return card({
      icon: '🌿',
      title: 'Recent commits',
      subject: where,
      lines: [[txt('on '), mono(r.branch)]],
      code: { label: 'log', text: s(r.log), filename: `${safeName(where)}-log.txt` },
    });
  if (command === 'git_diff' || command === 'get_task_diff') {
    const lines: Line[] = [
      facts([
        // git_diff names its base_branch; get_task_diff, the task's repository's default branch, as base.
        ['against', command === 'get_task_diff' ? r.base : r.base_branch],
        ['branch', r.branch],
      ]),
    ];
    return card({
      icon: '🌿',
      title: 'Changes',
      subject: where || r.branch,
      lines,
      code: { label: 'diff', text: s(r.diff), filename: `${safeName(where || r.branch)}.diff` },
    });
  }
  if (command === 'git_changed_files') {
    const files = r.files ?? [];
    return card({
      icon: '🌿',
      title: `${plural(files.length, 'file')} changed`,
      subject: where,
      lines: [[txt('against '), mono(r.base_branch)], ...files.slice(0, 60).map((f): Line => [txt('• '), mono(f)])],
      ...(files.length > 60 && { footer: `${files.length - 60} more not listed.` }),
    });
  }
  if (command === 'git_branch' && r.branches) {
    const branches = r.branches;
    return card({
      icon: '🌿',
      title: `${plural(branches.length, 'branch', 'branches')}`,
      subject: where,
      lines: branches.slice(0, 60).map((b): Line => [txt(b === r.current_branch ? '➜ ' : '   '), mono(b)]),
    });
  }
  const nothing = r.committed === false || r.status === 'nothing_to_commit';
  // A merge that conflicts is aborted: git_merge says merged false, merge_branch status conflict.
  const conflicted = r.merged === false || r.status === 'conflict';
  const title = conflicted
    ? 'Not merged: conflicts'
    : nothing
      ? 'Nothing to commit'
      : (GIT_ACTIONS[command] ?? (command === 'git_branch' ? 'Branch created' : 'Done'));
  const lines: Line[] = [
    facts([
      ['repo', r.repo_id],
      ['project', r.repo_id ? null : r.project_id],
      ['branch', r.branch ?? r.pushed ?? r.created_branch ?? r.new_branch ?? r.created],
      // git_merge merges into `into`, merge_branch into `target`, a pull request into `base`.
      ['into', r.into ?? r.target ?? r.base],
    ]),
  ];
  if (r.message || r.commit_message) lines.push([txt(s(r.commit_message ?? r.message))]);
  const conflicts = r.conflicting_files ?? [];
  lines.push(...conflicts.slice(0, 30).map((f): Line => [txt('• '), mono(f)]));
  if (conflicts.length > 30) lines.push([txt(`${plural(conflicts.length - 30, 'more file')} in conflict.`)]);
  if (r.pr_url) lines.push([txt('Pull request: '), link(s(r.pr_url))]);
  if (r.warning) lines.push([txt(`⚠️ ${s(r.warning)}`)]);
  return card({ icon: conflicted ? '⚠️' : nothing ? 'ℹ️' : '🌿', title, subject: where, lines });
}

export const FILES_COMMANDS = ['read_file', 'run_command', 'search_files', 'list_directory'] as const;
type FilesCommands = (typeof FILES_COMMANDS)[number];

/** Files and commands run in a workspace. */
export function filesCard(command: FilesCommands, r: AnyShape<Result<FilesCommands>>): Rendered {
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
