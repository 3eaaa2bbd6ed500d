import { cardFor } from './cards';
import { errorReply } from './errors';
import { genericBlocks } from './generic';
import { statusBlocks } from './status';
import { taskDetailBlocks, taskListBlocks } from './tasks';
import { ALL_COMMANDS } from '../../commands/index';
import type { ListPaging } from '../../commands/paging';
import { context, type Rendered } from './common';
import type { Result } from './result-types';
import { esc } from './text';

/** Block Kit for a command's result; a renderer per kind, and a generic one for the rest. */
export function renderResult(command: string, args: Record<string, unknown>, result: Record<string, unknown>): Rendered {
  if ('error' in result) return errorReply(result.error, command);
  return withWarning(designedOrGeneric(command, args, result), result.warning);
}

/**
 * The command's designed card, read through its result's type. Results come from the command of
 * that name, so they have that shape; should one not (a card's defect, a result from elsewhere),
 * the reply is the generic card of every key rather than none at all.
 */
function designedOrGeneric(command: string, args: Record<string, unknown>, result: Record<string, unknown>): Rendered {
  try {
    return renderSuccess(command, args, result);
  } catch {
    return withMorePages(genericBlocks(command, result), command, args, result);
  }
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
    // execute answers by name, so this is where a result meets its declared type.
    case 'get_status':
      return statusBlocks(result as Result<'get_status'>);
    case 'get_task':
      return taskDetailBlocks(result as Result<'get_task'>);
    case 'list_tasks':
      return taskListBlocks(
        result as Result<'list_tasks'>,
        { project_id: args.project_id, status: args.status },
        typeof args.offset === 'number' ? args.offset : 0,
      );
    default:
      return withMorePages(cardFor(command)?.(result, args) ?? genericBlocks(command, result), command, args, result);
  }
}

/** How each list command pages its reply, by name. */
const PAGED: ReadonlyMap<string, ListPaging> = new Map(ALL_COMMANDS.flatMap((c) => (c.list ? [[c.name, c.list] as const] : [])));

/**
 * A reply that is one page of a longer list says which items it shows of how many, and the offset
 * that asks for the next page, under any card that does not say so itself.
 */
function withMorePages(rendered: Rendered, command: string, args: Record<string, unknown>, result: Record<string, unknown>): Rendered {
  const list = PAGED.get(command);
  const next = result.next_offset;
  if (!list || typeof next !== 'number' || JSON.stringify(rendered.blocks).includes(`offset=${next}`)) return rendered;
  const from = typeof args.offset === 'number' ? args.offset : 0;
  const page = result[list.key];
  const total = result[list.totalKey ?? 'total'];
  // A reply in another shape than the declared list (chain health for one task) is not counted here.
  const shown = Array.isArray(page) && typeof total === 'number' ? `Showing ${from + 1}–${from + page.length} of ${total}` : 'More follow';
  const more = context(`${shown}: ask again with \`offset=${next}\` for the next page.`);
  return { ...rendered, blocks: [...rendered.blocks, more] };
}
