import type { ResultOf } from '../../commands/catalog';
import type { getStatus } from '../../commands/status';
import { CARDS } from './cards';
import { errorReply } from './errors';
import { genericBlocks } from './generic';
import { statusBlocks } from './status';
import { taskDetailBlocks, taskListBlocks } from './tasks';
import type { Rendered } from './common';

/** Block Kit for a command's result; a renderer per kind, and a generic one for the rest. */
export function renderResult(command: string, args: Record<string, unknown>, result: Record<string, unknown>): Rendered {
  if ('error' in result) return errorReply(result.error, command);
  switch (command) {
    case 'get_status':
      // execute answers by name, so this is where a result meets its declared type.
      return statusBlocks(result as ResultOf<typeof getStatus>);
    case 'get_task':
      return taskDetailBlocks(result);
    case 'list_tasks':
      return taskListBlocks(
        result as { tasks: Array<Record<string, unknown>>; total: number },
        { project_id: args.project_id, status: args.status },
        typeof args.offset === 'number' ? args.offset : 0,
      );
    default:
      return CARDS[command]?.(result, args) ?? genericBlocks(command, result);
  }
}
