import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { esc } from '../../src/slack/blocks/common';
import { decodeOrigin, MODAL_CALLBACKS, requestedTask } from '../../src/slack/blocks/home-modals';
import { originOfModal, tell } from '../actions/reply';
import { modalValues } from './values';

/** The Request changes modal: its text goes to the task's agent as a follow-up (message_task). */
export function registerRequestChangesModal(app: App, { runtime }: ListenerDeps): void {
  app.view(MODAL_CALLBACKS.requestChanges, async ({ ack, view, body, client }) => {
    const text = modalValues(view).text('changes');
    if (!text) {
      await ack({ response_action: 'errors', errors: { changes: 'Say what should change.' } });
      return;
    }
    await ack();
    const taskId = requestedTask(view.private_metadata) ?? '';
    const origin = originOfModal(decodeOrigin(view.private_metadata), body.user.id);
    const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
    const result = await runtime.handler.execute('message_task', { task_id: taskId, text, author: body.user.name ?? body.user.id }, actor);
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: The changes were not sent: ${esc(result.error)} See \`/aq help message_task\`.`
        : result.delivery === 'after_landing'
          ? `:steam_locomotive: Changes requested on \`${esc(taskId)}\`: ${esc(result.landing)}`
          : `:arrows_counterclockwise: Changes requested on \`${esc(taskId)}\`: the agent picks the task up again on its branch, and the pull request is updated.`,
    );
  });
}
