import type { AnyCommand } from './catalog';
import { projectCommands } from './projects';

/** Every command, in the order help lists them. Adding a command is adding it to a group file. */
export const ALL_COMMANDS: readonly AnyCommand[] = [...projectCommands];
