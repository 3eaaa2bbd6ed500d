import { z } from 'zod';
import { modelAccessOf, type AnyCommand } from '../commands/catalog';
import type { ChatToolDefinition } from '../model/provider';

const CONFIRM_NOTE = ' A person must confirm this with a button before it runs.';

/** Commands the model may see: everything but those marked `excluded`. */
export function modelCommands(commands: readonly AnyCommand[]): AnyCommand[] {
  return commands.filter((c) => modelAccessOf(c) !== 'excluded');
}

/** The model's tools, generated from the command catalog (no hand-written list). */
export function toolDefinitions(commands: readonly AnyCommand[]): ChatToolDefinition[] {
  return modelCommands(commands).map((command) => {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(command.input) as Record<string, unknown>;
    return {
      name: command.name,
      description: command.description + (modelAccessOf(command) === 'confirm' ? CONFIRM_NOTE : ''),
      inputSchema: schema,
    };
  });
}
