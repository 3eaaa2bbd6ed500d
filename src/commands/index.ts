import type { AnyCommand } from './catalog';
import { statusCommands } from './status';
import { projectCommands } from './projects';
import { budgetCommands } from './budgets';
import { channelCommands } from './channels';
import { taskCommands } from './tasks';
import { taskLifecycleCommands } from './task-lifecycle';
import { taskConversationCommands } from './task-conversation';
import { taskDependencyCommands } from './task-dependencies';
import { taskResultCommands } from './task-results';
import { agentCommands } from './agents';
import { agentRequestCommands } from './agent-requests';
import { workerCommands } from './workers';
import { hookCommands } from './hooks';
import { noteCommands } from './notes';
import { fileCommands } from './files';
import { systemCommands } from './system';
import { repoCommands } from './repos';
import { gitCommands } from './git';
import { gitLowLevelCommands } from './git-lowlevel';
import { workspaceCommands } from './workspaces';
import { mergeTrainCommands } from './merge-train';

/** Every command, in the order help lists them. Adding a command is adding it to a group file. */
export const ALL_COMMANDS: readonly AnyCommand[] = [
  ...statusCommands,
  ...projectCommands,
  ...budgetCommands,
  ...channelCommands,
  ...taskCommands,
  ...taskLifecycleCommands,
  ...taskConversationCommands,
  ...taskDependencyCommands,
  ...taskResultCommands,
  ...agentCommands,
  ...agentRequestCommands,
  ...workerCommands,
  ...repoCommands,
  ...gitCommands,
  ...gitLowLevelCommands,
  ...workspaceCommands,
  ...mergeTrainCommands,
  ...hookCommands,
  ...noteCommands,
  ...fileCommands,
  ...systemCommands,
];
