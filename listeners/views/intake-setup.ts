import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { esc } from '../../src/slack/blocks/common';
import { decodeOrigin, MODAL_CALLBACKS } from '../../src/slack/blocks/home-modals';
import { originOfModal, tell } from '../actions/reply';
import { modalValues } from './values';

/** The Channel intake modal: checked in place, then create_automation (kind intake), which only admins may run. */
export function registerIntakeSetupModal(app: App, { runtime }: ListenerDeps): void {
  app.view(MODAL_CALLBACKS.intakeSetup, async ({ ack, view, body, client }) => {
    const v = modalValues(view);
    const name = v.text('name');
    const channel = v.conversation('channel');
    const project = v.selected('project');
    const pattern = v.text('pattern');
    const errors: Record<string, string> = {};
    if (!name) errors.name = 'Name the intake.';
    if (!channel) errors.channel = 'Pick the channel to read.';
    if (!project) errors.project = 'Pick the project its tasks go to.';
    if (Object.keys(errors).length) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const origin = originOfModal(decodeOrigin(view.private_metadata), body.user.id);
    const reaction = v.text('reaction');
    const people = v.users('people');
    const result = await runtime.handler.execute(
      'create_automation',
      {
        name,
        kind: 'intake',
        project_id: project,
        channel_id: channel,
        policy: v.selected('policy') === 'create' ? 'create' : 'propose',
        ...(reaction && { reaction }),
        ...(pattern && { pattern }),
        ...(people.length && { people }),
      },
      { source: 'slack', userId: body.user.id },
    );
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: Intake was not turned on: ${esc(result.error)} See \`/aq help create_automation\`.`
        : `:inbox_tray: Intake *${esc(name)}* (\`${esc(result.created)}\`) now reads <#${esc(channel ?? '')}> for *${esc(project ?? '')}*. Invite the app to the channel if it is not there yet.`,
    );
  });
}
