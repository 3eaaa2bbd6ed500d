import type { App } from '@slack/bolt';
import { onAction } from './on-action';
import { AUTOMATION_BUTTONS } from '../../src/slack/blocks/action-ids';
import { esc } from '../../src/slack/blocks/common';
import { intakeSetupModal } from '../../src/slack/blocks/intake-setup-modal';
import type { ListenerDeps } from '../index';
import { modalOriginFor, originOfClick, tell } from './reply';

/** The Home's automation buttons: Pause / Resume, and Turn on channel intake (the commands refuse people outside AQ_ADMINS). */
export function registerAutomationButtons(app: App, { runtime }: ListenerDeps): void {
  const on = (actionId: string, command: 'pause_automation' | 'resume_automation', done: (name: string) => string) =>
    onAction(app, actionId, async ({ body, action, respond, client }) => {
      const origin = originOfClick(body, respond);
      const result = await runtime.handler.execute(
        command,
        { automation_id: action.value ?? '' },
        { source: 'slack', userId: origin.userId },
      );
      await tell({ runtime, client }, origin, 'error' in result ? `:warning: ${esc(result.error)}` : done(esc(result.name)));
    });
  on(
    AUTOMATION_BUTTONS.pause,
    'pause_automation',
    (name) => `:double_vertical_bar: Paused automation *${name}*: it starts nothing until resumed.`,
  );
  on(AUTOMATION_BUTTONS.resume, 'resume_automation', (name) => `:arrow_forward: Resumed automation *${name}*.`);
  onAction(app, AUTOMATION_BUTTONS.addIntake, async ({ body, respond, client }) => {
    const origin = originOfClick(body, respond);
    const projects = await runtime.handler.execute('list_projects', {}, { source: 'slack', userId: origin.userId });
    if ('error' in projects || projects.projects.length === 0) {
      return tell({ runtime, client }, origin, ':information_source: Create a project first: intake files its tasks under one.');
    }
    const choices = projects.projects.map((p) => ({ id: String(p.id), name: String(p.name) }));
    await client.views.open({ trigger_id: body.trigger_id, view: intakeSetupModal(choices, modalOriginFor(origin)) });
  });
}
