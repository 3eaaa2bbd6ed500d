import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { decodeOrigin, MODAL_CALLBACKS } from '../../src/slack/blocks/home-modals';
import { esc } from '../../src/slack/blocks/common';
import { originOfModal, tell } from '../actions/reply';
import { modalValues } from './values';

const REPO_SOURCES = ['clone', 'link', 'init'] as const;

/**
 * The Add a repository modal. A clone can take longer than Slack waits for the modal's answer,
 * so the fields are checked in place, the modal closes, and the outcome is told afterwards.
 */
export function registerAddRepoModal(app: App, { runtime }: ListenerDeps): void {
  app.view(MODAL_CALLBACKS.addRepo, async ({ ack, view, body, client }) => {
    const v = modalValues(view);
    const project = v.selected('project');
    const picked = v.selected('source') ?? 'clone';
    const source = REPO_SOURCES.find((s) => s === picked);
    const url = v.text('url');
    const path = v.text('path');
    const name = v.text('name');
    const errors: Record<string, string> = {};
    if (!project) errors.project = 'Pick a project.';
    if (!source) errors.source = 'Pick how to add the repository: clone, link or init.';
    if (source === 'clone' && !url) errors.url = 'Give the URL to clone.';
    if (source === 'link' && !path) errors.path = 'Give the folder to link.';
    if (!project || !source || Object.keys(errors).length) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const origin = originOfModal(decodeOrigin(view.private_metadata), body.user.id);
    const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
    const result = await runtime.handler.execute(
      'add_repo',
      { project_id: project, source, ...(source === 'clone' && { url }), ...(source === 'link' && { path }), ...(name && { name }) },
      actor,
    );
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: Could not add the repository: ${esc(result.error)} See \`/aq help add_repo\`.`
        : `:white_check_mark: Added repository *${esc(result.name)}* (\`${esc(result.created)}\`) to ${esc(project)}.`,
    );
  });
}
