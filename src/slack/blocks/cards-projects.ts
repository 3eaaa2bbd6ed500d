import { button, type Rendered } from './common';
import { plural, statusWords } from './cards-format';
import { card, channel, item, listCard, updatedCard } from './cards-kit';
import { mono, txt } from './text';
import { HOME_BUTTONS } from './action-ids';
import type { CommandAndResult, Result } from './result-types';

const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));

export function projectsCard(r: Result<'list_projects'>): Rendered {
  const items = r.projects.map((p) => [
    ...item(
      p.name,
      p.id,
      [
        ['', statusWords(p.status)],
        ['weight', p.credit_weight],
        ['up to', plural(Number(p.max_concurrent_agents ?? 0), 'agent')],
      ],
      p.status === 'PAUSED' ? '⏸️' : '📁',
    ),
    ...(p.chat_channel_id ? [txt(' · '), channel(p.chat_channel_id)] : []),
  ]);
  return listCard('📁', 'Projects', items, 'No projects yet: `/aq create_project name=…` or the Home tab.', r.total);
}

export function agentsCard(r: Result<'list_agents'>): Rendered {
  const items = r.agents.map((a) =>
    item(
      a.name,
      a.id,
      [
        ['', statusWords(a.state)],
        ['on', a.current_task],
      ],
      a.state === 'BUSY' ? '🛠️' : '💤',
    ),
  );
  return listCard('🤖', 'Agents', items, 'No agents yet: `/aq create_agent name=claude-1` adds one.', r.total);
}

export const PROJECT_ACTION_COMMANDS = [
  'create_project',
  'pause_project',
  'resume_project',
  'edit_project',
  'delete_project',
  'create_agent',
  'set_project_channel',
  'set_control_interface',
  'get_project_channels',
  'get_project_for_channel',
  'set_active_project',
  'orchestrator_control',
  'restart_daemon',
  'update_and_restart',
] as const;
type ProjectActionCommands = (typeof PROJECT_ACTION_COMMANDS)[number];

/** Project and agent changes, as one sentence each. */
export function projectActionCard(...[command, r]: CommandAndResult<ProjectActionCommands>): Rendered {
  switch (command) {
    case 'create_project':
      return card({
        icon: '📁',
        title: 'Project created',
        subject: r.name,
        lines: [
          [mono(r.created), txt(r.auto_create_channels ? ' · its channel is being created' : '')],
          [txt('Workspace '), mono(r.workspace)],
        ],
        buttons: [
          button('Add a repository', HOME_BUTTONS.addRepo, s(r.created)),
          button('New task', HOME_BUTTONS.newTask, s(r.created), 'primary'),
        ],
      });
    case 'pause_project':
      return card({
        icon: '⏸️',
        title: 'Paused',
        subject: r.name,
        lines: [[txt('No new tasks start for it; running ones finish.')]],
        buttons: [button('Resume', HOME_BUTTONS.resumeProject, s(r.paused))],
      });
    case 'resume_project':
      return card({ icon: '▶️', title: 'Resumed', subject: r.name, lines: [[txt('Its ready tasks are scheduled again.')]] });
    case 'edit_project':
      return updatedCard('Project updated', r.updated, r.fields);
    case 'delete_project':
      return card({
        icon: '🗑️',
        title: 'Project deleted',
        subject: r.name,
        lines: [[mono(r.deleted), txt(r.archive_channels ? ' · its channel is archived' : '')]],
      });
    case 'create_agent':
      return card({ icon: '🤖', title: 'Agent added', subject: r.name, lines: [[mono(r.created), txt(' · picks up ready tasks')]] });
    case 'set_project_channel':
    case 'set_control_interface':
      return card({
        icon: '🔗',
        title: 'Channel linked',
        subject: r.project_id,
        lines: [[txt('Updates go to '), channel(r.channel_id), txt(', and commands there default to this project.')]],
      });
    case 'get_project_channels':
      return card({
        icon: '🔗',
        title: 'Channel',
        subject: r.project_id,
        lines: [r.channel_id ? [channel(r.channel_id)] : [txt('No channel linked.')]],
      });
    case 'get_project_for_channel':
      return card({
        icon: '🔗',
        title: 'This channel',
        subject: r.project_name ?? 'no project',
        lines: [[txt(r.project_id ? `Project ${s(r.project_id)}` : 'Not linked to a project.')]],
      });
    case 'set_active_project':
      return card({ icon: '📌', title: r.active_project ? 'Working in' : 'No active project', subject: r.name ?? r.active_project });
    case 'orchestrator_control':
      return card({
        icon: r.status === 'paused' ? '⏸️' : '▶️',
        title: r.status === 'paused' ? 'Scheduling is paused' : 'Scheduling is running',
        lines: [[txt(s(r.message) || (r.running_tasks !== undefined ? `${plural(Number(r.running_tasks), 'task')} running` : ''))]],
        ...(r.status === 'paused' && { buttons: [button('Resume scheduling', HOME_BUTTONS.resumeScheduling, 'resume', 'primary')] }),
      });
    default:
      return card({ icon: '🔄', title: s(r.message) || 'Restarting', subject: r.reason });
  }
}
