import type { Rendered } from './common';
import { formatNumber, plural } from './cards-format';
import { card, countOf, facts, item, listCard, updatedCard } from './cards-kit';
import { bold, mono, txt, type Line } from './text';
import type { CommandAndResult, Result } from './result-types';

const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const kb = (bytes: unknown) => `${formatNumber(Math.max(1, Math.round(Number(bytes ?? 0) / 1024)))} KB`;

export function reposCard(r: Result<'list_repos'>): Rendered {
  const items = r.repos.map((repo) => [
    ...item(
      repo.id,
      undefined,
      [
        ['', repo.project_id],
        ['', repo.source_type],
        ['default', repo.default_branch],
      ],
      '📦',
    ),
    ...(repo.url || repo.source_path || repo.checkout_base_path
      ? [txt('\n    '), mono(repo.url ?? repo.source_path ?? repo.checkout_base_path)]
      : []),
  ]);
  return listCard('📦', 'Repositories', items, 'No repositories yet: add one from the Home tab or `/aq add_repo`.', r.total);
}

export function workspacesCard(r: Result<'list_workspaces'>): Rendered {
  const items = r.workspaces.map((w) => [
    ...item(
      w.name,
      w.id,
      [
        ['', w.source_type],
        ['repo', w.repo_id],
        ['', w.locked_by_task_id ? `in use by ${s(w.locked_by_task_id)}` : 'free'],
      ],
      w.locked_by_task_id ? '🔒' : '🗂️',
    ),
    txt('\n    '),
    mono(w.path),
  ]);
  return listCard(
    '🗂️',
    `Workspaces${r.project_id ? ` of ${s(r.project_id)}` : ''}`,
    items,
    'No workspaces yet: `/aq add_workspace` adds one.',
    r.total,
  );
}

export function hooksCard(r: Result<'list_hooks'>): Rendered {
  const items = r.hooks.map((h) => {
    const trigger = h.trigger;
    const when = trigger.type === 'periodic' ? `every ${s(trigger.interval_seconds)}s` : `on ${s(trigger.event_type)}`;
    return item(
      h.name,
      h.id,
      [
        ['', h.project_id],
        ['', when],
        ['', h.enabled ? 'on' : 'off'],
      ],
      h.enabled ? '🪝' : '⏸️',
    );
  });
  return listCard('🪝', 'Hooks', items, 'No hooks yet: `/aq help create_hook` shows how to add one.', r.total);
}

export function hookRunsCard(r: Result<'list_hook_runs'>): Rendered {
  const items = r.runs.map((run): Line => {
    const icon = run.status === 'completed' ? '✅' : run.status === 'failed' ? '🔴' : run.status === 'skipped' ? '⏭️' : '⏳';
    const details = [
      s(run.status),
      s(run.trigger_reason),
      run.tokens_used ? `${formatNumber(run.tokens_used)} tokens` : '',
      s(run.skipped_reason),
    ].filter(Boolean);
    return [txt(`${icon} `), bold(s(run.started_at).replace('T', ' ').slice(0, 16)), txt(`  ${details.join(' · ')}`)];
  });
  return listCard('🪝', `Runs of ${s(r.hook_name ?? r.hook_id)}`, items, 'It has not run yet.', r.total);
}

/** A note's modified time (list_notes gives seconds since the epoch, as the spec says) as its UTC day. */
function modifiedDay(seconds: number): string {
  const at = new Date(seconds * 1000);
  return Number.isNaN(at.getTime()) ? '' : at.toISOString().slice(0, 10);
}

export const NOTES_COMMANDS = ['list_notes', 'compare_specs_notes'] as const;

export function notesCard(...[command, r]: CommandAndResult<(typeof NOTES_COMMANDS)[number]>): Rendered {
  if (command === 'compare_specs_notes') {
    const line = (n: { name: string; title: string; size_bytes: number }) => item(n.title, n.name, [['', kb(n.size_bytes)]], '📄');
    return card({
      icon: '📚',
      title: 'Specs and notes',
      subject: r.project_id,
      lines: [
        [bold(`Specs · ${r.specs.length}`)],
        ...r.specs.map(line),
        [bold(`Notes · ${countOf(r.notes_total, r.notes.length)}`)],
        ...r.notes.map(line),
      ],
    });
  }
  const items = r.notes.map((n) =>
    item(
      n.title,
      n.name,
      [
        ['', kb(n.size_bytes)],
        ['', modifiedDay(n.modified)],
      ],
      '📝',
    ),
  );
  return listCard('📝', `Notes of ${s(r.project_id)}`, items, 'No notes yet: `/aq write_note` writes one.', r.total);
}

export const REPO_ACTION_COMMANDS = [
  'add_repo',
  'add_workspace',
  'release_workspace',
  'remove_workspace',
  'create_hook',
  'edit_hook',
  'delete_hook',
  'fire_hook',
  'write_note',
  'append_note',
  'read_note',
  'delete_note',
] as const;
type RepoActionCommands = (typeof REPO_ACTION_COMMANDS)[number];

/** Repo, workspace, hook and note changes, as one sentence each. */
export function repoActionCard(...[command, r]: CommandAndResult<RepoActionCommands>): Rendered {
  switch (command) {
    case 'add_repo':
      return card({
        icon: '📦',
        title: 'Repository added',
        subject: r.name,
        lines: [
          [mono(r.created), txt(` · ${s(r.source_type)}`)],
          [txt('Checked out at '), mono(r.checkout_base_path)],
        ],
      });
    case 'add_workspace':
      return card({
        icon: '🗂️',
        title: 'Workspace added',
        subject: r.name,
        lines: [[mono(r.path)], ...(r.warning ? [[txt(`⚠️ ${s(r.warning)}`)]] : [])],
      });
    case 'release_workspace':
      return card({
        icon: '🔓',
        title: r.released ? 'Workspace released' : 'Nothing to release',
        subject: r.workspace_id,
        lines: [[txt(r.released ? `It was held by ${s(r.previous_task_id)}.` : s(r.message))]],
      });
    case 'remove_workspace':
      return card({
        icon: '🗑️',
        title: 'Workspace removed',
        subject: r.name,
        lines: [[mono(r.path), txt(r.files_deleted ? ' · files deleted' : ' · files kept')]],
      });
    case 'create_hook':
      return card({ icon: '🪝', title: 'Hook created', subject: r.name, lines: [[mono(r.created), txt(` · ${s(r.project_id)}`)]] });
    case 'edit_hook':
      return updatedCard('Hook updated', r.updated, r.fields);
    case 'delete_hook':
      return card({ icon: '🗑️', title: 'Hook deleted', subject: r.name });
    case 'fire_hook':
      return card({ icon: '🪝', title: 'Hook started', subject: r.fired, lines: [[txt('Its result is posted to the project channel.')]] });
    case 'write_note':
    case 'append_note':
      return card({
        icon: '📝',
        title: `Note ${s(r.status)}`,
        subject: r.title,
        lines: [[mono(r.path), ...('size_bytes' in r ? [txt(` · ${kb(r.size_bytes)}`)] : [])]],
      });
    case 'read_note':
      return card({
        icon: '📝',
        title: 'Note',
        subject: r.title,
        code: { label: 'note', text: s(r.content), filename: `${s(r.title).replace(/[^\w-]+/g, '-') || 'note'}.md` },
      });
    case 'delete_note':
      return card({ icon: '🗑️', title: 'Note deleted', subject: r.title });
  }
}

const SYNC_ICONS: Record<Result<'sync_workspaces'>['workspaces'][number]['status'], string> = {
  synced: '✅',
  skipped: '⏭️',
  conflict: '⚠️',
  error: '🔴',
};

export const WORKSPACE_SCAN_COMMANDS = ['find_merge_conflict_workspaces', 'sync_workspaces'] as const;
type WorkspaceScanCommands = (typeof WORKSPACE_SCAN_COMMANDS)[number];

/** find_merge_conflict_workspaces and sync_workspaces: a line per workspace. */
export function workspaceScanCard(...[command, r]: CommandAndResult<WorkspaceScanCommands>): Rendered {
  if (command === 'sync_workspaces') {
    const results = r.workspaces ?? [];
    return card({
      icon: '🔄',
      title: 'Workspaces synced',
      subject: r.project_id,
      lines: [
        facts([
          ['', `${s(r.synced)} synced`],
          ['', `${s(r.skipped)} skipped`],
          ['', `${s(r.errors)} failed`],
          ['', r.conflicts ? `${s(r.conflicts)} with conflicts` : ''],
          ['default', r.default_branch],
        ]),
        ...results.slice(0, 30).map((w) =>
          item(
            w.workspace_name,
            w.workspace_id,
            [
              ['', w.status],
              ['', w.message],
            ],
            SYNC_ICONS[w.status],
          ),
        ),
      ],
    });
  }
  // sync_workspaces counts its conflicts; this command lists them.
  const conflicts = Array.isArray(r.conflicts) ? r.conflicts : [];
  return card({
    icon: conflicts.length ? '⚠️' : '✅',
    title: conflicts.length
      ? `${plural(Number(r.workspaces_with_conflicts ?? conflicts.length), 'workspace')} with conflicts`
      : 'No merge conflicts',
    subject: r.project_id,
    lines: [
      [txt(`${plural(Number(r.workspaces_scanned ?? 0), 'workspace')} scanned`)],
      ...conflicts.slice(0, 30).map((c) =>
        item(
          c.workspace_name,
          c.workspace_id,
          [
            ['on', c.current_branch],
            ['', c.error ? `could not check: ${s(c.error)}` : null],
          ],
          '⚠️',
        ),
      ),
    ],
  });
}
