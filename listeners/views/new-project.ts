import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { decodeOrigin, MODAL_CALLBACKS } from '../../src/slack/blocks/home-modals';
import { esc } from '../../src/slack/blocks/common';
import { originOfModal, tell } from '../actions/reply';
import { modalValues } from './values';

const ACK_BUDGET_MS = 2000;

/** The New project modal: create_project, then the outcome where the modal was opened. */
export function registerNewProjectModal(app: App, { runtime }: ListenerDeps): void {
  app.view(MODAL_CALLBACKS.newProject, async ({ ack, view, body, client }) => {
    const v = modalValues(view);
    const name = v.text('name');
    if (!name) {
      await ack({ response_action: 'errors', errors: { name: 'Give the project a name.' } });
      return;
    }
    const createChannel = v.checked('channel', 'create_channel');
    const origin = originOfModal(decodeOrigin(view.private_metadata), body.user.id);
    const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
    // Usually quick (a folder and a row), so a clash can be shown beside the name; if it takes
    // longer than Slack waits, the modal closes and the outcome is told afterwards.
    const creating = runtime.handler.execute('create_project', { name, auto_create_channels: createChannel }, actor);
    const early = await Promise.race([creating, new Promise<null>((r) => setTimeout(() => r(null), ACK_BUDGET_MS).unref())]);
    if (early && 'error' in early) {
      await ack({ response_action: 'errors', errors: { name: String(early.error).slice(0, 150) } });
      return;
    }
    await ack();
    const result = await creating;
    if ('error' in result) {
      await tell(
        { runtime, client },
        origin,
        `:warning: Could not create the project: ${esc(result.error)} See \`/aq help create_project\`.`,
      );
      return;
    }
    const next = 'Next: add a repository or create a task from the Home.';
    await tell(
      { runtime, client },
      origin,
      `:white_check_mark: Created project *${esc(result.name)}* (\`${esc(result.created)}\`)${createChannel ? ', and its channel is on the way' : ''}. ${next}`,
    );
  });
}
