import type { App } from '@slack/bolt';
import { onAction } from './on-action';
import { MERGE_TRAIN_BUTTONS } from '../../src/slack/blocks/action-ids';
import { esc } from '../../src/slack/blocks/common';
import type { ListenerDeps } from '../index';
import { originOfClick, tell } from './reply';

/**
 * The merge train card's Move up / Take out buttons. They run move_in_merge_queue and
 * remove_from_merge_queue as the person who clicked, so the commands' admin rule decides.
 */
export function registerMergeTrainButtons(app: App, { runtime }: ListenerDeps): void {
  onAction(app, MERGE_TRAIN_BUTTONS.moveUp, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const [taskId = '', place = '1'] = (action.value ?? '').split(' ');
    const result = await runtime.handler.execute(
      'move_in_merge_queue',
      { task_id: taskId, place },
      { source: 'slack', userId: origin.userId },
    );
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: ${esc(result.error)}`
        : `:arrow_up: Moved \`${esc(result.moved)}\` to place ${result.place} of its merge train.`,
    );
  });
  onAction(app, MERGE_TRAIN_BUTTONS.takeOut, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const result = await runtime.handler.execute(
      'remove_from_merge_queue',
      { task_id: action.value ?? '' },
      { source: 'slack', userId: origin.userId },
    );
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: ${esc(result.error)}`
        : `:eject: Took \`${esc(result.removed)}\` out of its merge train: it stays awaiting approval, unmerged, until someone approves, restarts or skips it.`,
    );
  });
}
