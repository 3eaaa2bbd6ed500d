import type { AnyCommand } from './catalog';
import { statusCommands } from './status';
import { projectCommands } from './projects';
import { budgetCommands } from './budgets';
import { channelCommands } from './channels';
import { taskRoomCommands } from './task-rooms';
import { taskCommands } from './tasks';
import { planCommands } from './plans';
import { taskLifecycleCommands } from './task-lifecycle';
import { taskConversationCommands } from './task-conversation';
import { taskDependencyCommands } from './task-dependencies';
import { taskResultCommands } from './task-results';
import { agentCommands } from './agents';
import { agentRequestCommands } from './agent-requests';
import { workerCommands } from './workers';
import { overlapCommands } from './overlaps';
import { hookCommands } from './hooks';
import { automationCommands } from './automations';
import { intakeCommands } from './intake';
import { noteCommands } from './notes';
import { fileCommands } from './files';
import { systemCommands } from './system';
import { repoCommands } from './repos';
import { gitCommands } from './git';
import { gitLowLevelCommands } from './git-lowlevel';
import { workspaceCommands } from './workspaces';
import { mergeTrainCommands } from './merge-train';

const CATALOG = [
  ...statusCommands,
  ...projectCommands,
  ...budgetCommands,
  ...channelCommands,
  ...taskRoomCommands,
  ...taskCommands,
  ...planCommands,
  ...taskLifecycleCommands,
  ...taskConversationCommands,
  ...taskDependencyCommands,
  ...taskResultCommands,
  ...overlapCommands,
  ...agentCommands,
  ...agentRequestCommands,
  ...workerCommands,
  ...repoCommands,
  ...gitCommands,
  ...gitLowLevelCommands,
  ...workspaceCommands,
  ...mergeTrainCommands,
  ...hookCommands,
  ...automationCommands,
  ...noteCommands,
  ...fileCommands,
  ...systemCommands,
  ...intakeCommands,
];

/** Every command, in the order help lists them. Adding a command is adding it to a group file. */
export const ALL_COMMANDS: readonly AnyCommand[] = CATALOG;

/** One command of the catalog, with its own input schema, result type and literal name. */
export type CatalogCommand = (typeof CATALOG)[number];

/** The name of a command of the catalog: `execute` takes only these (callers with text from people use `executeAny`). */
export type CommandName = CatalogCommand['name'];

/** The definition of the command called `N`, e.g. `CommandNamed<'get_task'>`. */
export type CommandNamed<N extends CommandName> = Extract<CatalogCommand, { name: N }>;
