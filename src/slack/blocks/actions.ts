import type { ActionsBlock, ActionsBlockElement, KnownBlock } from '@slack/types';
import { LIMITS } from './common';

/**
 * Slack rejects a message (invalid_blocks) whose actions block holds one action_id twice, or
 * whose blocks share a block_id. Every actions block is built here, and a repeated id gets a
 * suffix (`aq_help_page`, `aq_help_page~2`, …); listeners match with actionMatcher, which
 * accepts the id with or without it.
 */
const REPEAT = '~';

/** `id`, or `id~n` when `id` is taken, within Slack's 255 characters. */
function unique(id: string, taken: Set<string>): string {
  let candidate = id.slice(0, LIMITS.actionId);
  for (let n = 2; taken.has(candidate); n += 1) {
    const suffix = `${REPEAT}${n}`;
    candidate = `${id.slice(0, LIMITS.actionId - suffix.length)}${suffix}`;
  }
  taken.add(candidate);
  return candidate;
}

/** An actions block (Slack: at most 25 elements) whose action ids are unique within it. */
export function actionsBlock(elements: ActionsBlockElement[], blockId?: string): ActionsBlock {
  const taken = new Set<string>();
  return {
    type: 'actions',
    ...(blockId && { block_id: blockId.slice(0, LIMITS.actionId) }),
    elements: elements
      .slice(0, 25)
      .map((el) => ('action_id' in el && el.action_id ? { ...el, action_id: unique(el.action_id, taken) } : el)),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What a listener registers for an action id: the id itself or the id made unique in its block. */
export function actionMatcher(actionId: string): RegExp {
  return new RegExp(`^${escapeRegExp(actionId)}(${REPEAT}\\d+)?$`);
}

/** The blocks of one message or view, a repeated block_id made unique (renderers' blocks are combined in chat replies). */
export function uniqueBlockIds<B extends KnownBlock>(blocks: B[]): B[] {
  const taken = new Set<string>();
  return blocks.map((b) => (typeof b.block_id === 'string' && b.block_id ? { ...b, block_id: unique(b.block_id, taken) } : b));
}
