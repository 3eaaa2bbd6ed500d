import type { CommandName } from '../../commands/index';
import type { Rendered } from './common';
import type { CommandAndResult, Result } from './result-types';
import { FILES_COMMANDS, GIT_COMMANDS, gitCard, filesCard } from './cards-git';
import { PROJECT_ACTION_COMMANDS, agentsCard, projectActionCard, projectsCard } from './cards-projects';
import {
  WORKSPACE_SCAN_COMMANDS,
  REPO_ACTION_COMMANDS,
  hookRunsCard,
  hooksCard,
  NOTES_COMMANDS,
  notesCard,
  repoActionCard,
  reposCard,
  workspaceScanCard,
  workspacesCard,
} from './cards-repos';
import {
  DEPENDENCY_COMMANDS,
  TASK_ACTION_COMMANDS,
  agentErrorCard,
  createdTaskCard,
  dependencyCard,
  taskActionCard,
  taskResultCard,
} from './cards-tasks';
import { BUDGET_COMMANDS, budgetCard, eventsCard, taskMessageCard, tokenUsageCard } from './cards-usage';
import { agentRequestsCard, answerCard, toolPolicyCard } from './cards-policy';
import { workersCard } from './cards-workers';
import { mergeQueueCard } from './cards-merge-train';

/** A card drawn from the result of the command called `N`, typed on that command's declared result. */
type CardFor<N extends CommandName> = (result: Result<N>, args: Record<string, unknown>) => Rendered;
type Renderer = (result: Record<string, unknown>, args: Record<string, unknown>) => Rendered;

/** One card for several commands' results, told which command answered (which narrows the result). */
function each<N extends CommandName>(names: readonly N[], render: (...args: CommandAndResult<N>) => Rendered) {
  const draw = render as (command: N, result: Result<N>) => Rendered;
  return Object.fromEntries(names.map((name) => [name, (result: Result<N>) => draw(name, result)])) as unknown as {
    [K in N]: CardFor<K>;
  };
}

/**
 * The designed card for each command's result (commands not listed here fall back to the generic
 * renderer). `satisfies` keeps each card's own parameter type, which CardInputs exposes.
 */
const CARDS = {
  create_task: createdTaskCard,
  get_agent_error: agentErrorCard,
  get_task_result: taskResultCard,
  ...each(TASK_ACTION_COMMANDS, taskActionCard),
  ...each(DEPENDENCY_COMMANDS, dependencyCard),
  list_projects: projectsCard,
  list_agents: agentsCard,
  list_workers: workersCard,
  ...each(PROJECT_ACTION_COMMANDS, projectActionCard),
  list_repos: reposCard,
  list_workspaces: workspacesCard,
  list_hooks: hooksCard,
  list_hook_runs: hookRunsCard,
  ...each(NOTES_COMMANDS, notesCard),
  ...each(REPO_ACTION_COMMANDS, repoActionCard),
  ...each(WORKSPACE_SCAN_COMMANDS, workspaceScanCard),
  ...each(GIT_COMMANDS, gitCard),
  ...each(FILES_COMMANDS, filesCard),
  get_token_usage: tokenUsageCard,
  get_recent_events: eventsCard,
  ...each(BUDGET_COMMANDS, budgetCard),
  message_task: taskMessageCard,
  get_tool_policy: toolPolicyCard,
  set_tool_policy: toolPolicyCard,
  list_agent_requests: agentRequestsCard,
  answer_agent_request: answerCard,
  get_merge_queue: mergeQueueCard,
} satisfies { [N in CommandName]?: CardFor<N> };

/**
 * What each card declares it reads: a command's result, not an untyped record, so that renaming a
 * result key fails the type check in the card (test/unit/slack/card-types.test.ts holds every
 * card to it).
 */
export type CardInputs = { [N in keyof typeof CARDS]: Parameters<(typeof CARDS)[N]>[0] };

/**
 * The card for a result of the command called `name`. Results arrive here by name (renderResult),
 * so this is the one place a result meets its command's declared type.
 */
export function cardFor(name: string): Renderer | undefined {
  return (CARDS as unknown as Record<string, Renderer | undefined>)[name];
}

/** The commands whose results have a designed card. */
export const CARDED_COMMANDS: readonly string[] = Object.keys(CARDS);
