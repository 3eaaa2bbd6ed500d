import type { App } from '@slack/bolt';
import { onAction } from './on-action';
import { REQUEST_CHANGES_BUTTONS } from '../../src/slack/blocks/action-ids';
import { getTask } from '../../src/commands/tasks';
import type { ListenerDeps } from '../index';
import { esc } from '../../src/slack/blocks/common';
import { statusWords } from '../../src/slack/blocks/cards-format';
import { requestChangesModal } from '../../src/slack/blocks/home-modals';
import { modalOriginFor, originOfClick, tell } from './reply';

/** Request changes on a task awaiting approval: opens a modal whose text becomes a follow-up run. */
export function registerRequestChanges(app: App, { runtime }: ListenerDeps): void {
  onAction(app, REQUEST_CHANGES_BUTTONS.open, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const taskId = action.value ?? '';
    const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
    const task = await runtime.handler.executeCommand(getTask, { task_id: taskId }, actor);
    if ('error' in task) {
      await tell({ runtime, client }, origin, `:grey_question: That task no longer exists (\`${esc(taskId)}\`).`);
      return;
    }
    const refusal = await runtime.handler.taskRefusal(taskId, 'request changes on', actor);
    if (refusal) {
      await tell({ runtime, client }, origin, `:no_entry: ${esc(refusal)}`);
      return;
    }
    if (task.status !== 'AWAITING_APPROVAL') {
      await tell(
        { runtime, client },
        origin,
        `:information_source: Nothing to do: that task is ${statusWords(task.status)}, not awaiting approval.`,
      );
      return;
    }
    await client.views.open({ trigger_id: body.trigger_id, view: requestChangesModal(taskId, String(task.title), modalOriginFor(origin)) });
  });
}
