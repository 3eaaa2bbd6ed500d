import type { ResultOf } from '../../commands/catalog';
import type { getStatus } from '../../commands/status';
import { cardFor } from './cards';
import { errorReply } from './errors';
import { genericBlocks } from './generic';
import { statusBlocks } from './status';
import { taskDetailBlocks, taskListBlocks } from './tasks';
import { context, type Rendered } from './common';
import { esc } from './text';

/** Block Kit for a command's result; a renderer per kind, and a generic one for the rest. */
export function renderResult(command: string, args: Record<string, unknown>, result: Record<string, unknown>): Rendered {
  if ('error' in result) return errorReply(result.error, command);
  return withWarning(renderSuccess(command, args, result), result.warning);
}

/** A result's warning (the spec's optional one) shown on every card, unless the card shows it already. */
function withWarning(rendered: Rendered, warning: unknown): Rendered {
  if (typeof warning !== 'string' || !warning) return rendered;
  const shown = JSON.stringify(rendered.blocks);
  const inJson = (text: string) => JSON.stringify(text).slice(1, -1);
  if (shown.includes(inJson(warning)) || shown.includes(inJson(esc(warning)))) return rendered;
  return { ...rendered, blocks: [...rendered.blocks, context(`⚠️ ${esc(warning)}`)] };
}

function renderSuccess(command: string, args: Record<string, unknown>, result: Record<string, unknown>): Rendered {
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
      return cardFor(command)?.(result, args) ?? genericBlocks(command, result);
  }
}
