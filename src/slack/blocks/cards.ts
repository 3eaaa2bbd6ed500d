import type { CommandName } from '../../commands/index';
import type { Rendered } from './common';
import type { Result } from './result-types';
import { gitCard, filesCard } from './cards-git';
import { agentsCard, projectActionCard, projectsCard } from './cards-projects';
import { hookRunsCard, hooksCard, notesCard, repoActionCard, reposCard, workspaceScanCard, workspacesCard } from './cards-repos';
import { agentErrorCard, createdTaskCard, dependencyCard, taskActionCard, taskResultCard } from './cards-tasks';
import { budgetCard, eventsCard, taskMessageCard, tokenUsageCard } from './cards-usage';
import { agentRequestsCard, answerCard, toolPolicyCard } from './cards-policy';
import { workersCard } from './cards-workers';

/** A card drawn from the result of the command called `N`, typed on that command's declared result. */
type CardFor<N extends CommandName> = (result: Result<N>, args: Record<string, unknown>) => Rendered;
type Renderer = (result: Record<string, unknown>, args: Record<string, unknown>) => Rendered;

/** One card for several commands' results, told which command answered. */
function each<N extends CommandName>(names: readonly N[], render: (command: N, result: Record<string, unknown>) => Rendered) {
  return Object.fromEntries(names.map((name) => [name, (result: Record<string, unknown>) => render(name, result)])) as unknown as {
    [K in N]: CardFor<K>;
  };
}

/** The designed card for each command's result (commands not listed here fall back to the generic renderer). */
const CARDS: { [N in CommandName]?: CardFor<N> } = {
  create_task: createdTaskCard,
  get_agent_error: agentErrorCard,
  get_task_result: taskResultCard,
  ...each(['approve_task', 'skip_task', 'restart_task', 'stop_task', 'delete_task', 'edit_task', 'set_task_status'], taskActionCard),
  ...each(['add_dependency', 'remove_dependency', 'get_task_dependencies', 'get_chain_health'], dependencyCard),
  list_projects: projectsCard,
  list_agents: agentsCard,
  list_workers: workersCard,
  ...each(
    [
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
    ],
    projectActionCard,
  ),
  list_repos: reposCard,
  list_workspaces: workspacesCard,
  list_hooks: hooksCard,
  list_hook_runs: hookRunsCard,
  list_notes: notesCard,
  compare_specs_notes: notesCard,
  ...each(
    [
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
    ],
    repoActionCard,
  ),
  ...each(['find_merge_conflict_workspaces', 'sync_workspaces'], workspaceScanCard),
  ...each(
    [
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
    ],
    gitCard,
  ),
  ...each(['read_file', 'run_command', 'search_files', 'list_directory'], filesCard),
  get_token_usage: tokenUsageCard,
  get_recent_events: eventsCard,
  ...each(['set_budget', 'get_budget', 'clear_budget'], budgetCard),
  message_task: taskMessageCard,
  get_tool_policy: toolPolicyCard,
  set_tool_policy: toolPolicyCard,
  list_agent_requests: agentRequestsCard,
  answer_agent_request: answerCard,
};

/**
 * The card for a result of the command called `name`. Results arrive here by name (renderResult),
 * so this is the one place a result meets its command's declared type.
 */
export function cardFor(name: string): Renderer | undefined {
  return (CARDS as Record<string, Renderer | undefined>)[name];
}

/** The commands whose results have a designed card. */
export const CARDED_COMMANDS: readonly string[] = Object.keys(CARDS);
