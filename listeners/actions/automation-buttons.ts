import type { App, BlockButtonAction } from '@slack/bolt';
import { actionMatcher } from '../../src/slack/blocks/actions';
import { esc } from '../../src/slack/blocks/common';
import { PAUSE_AUTOMATION_ACTION, RESUME_AUTOMATION_ACTION } from '../../src/slack/blocks/home-automations';
import type { ListenerDeps } from '../index';
import { originOfClick, tell } from './reply';

/** The Home's Pause / Resume buttons on automations (the commands refuse people outside AQ_ADMINS). */
export function registerAutomationButtons(app: App, { runtime }: ListenerDeps): void {
  const on = (actionId: string, command: string, done: (name: string) => string) =>
    app.action<BlockButtonAction>(actionMatcher(actionId), async ({ ack, body, action, respond, client }) => {
      await ack();
      const origin = originOfClick(body, respond);
      const result = await runtime.handler.execute(
        command,
        { automation_id: action.value ?? '' },
        { source: 'slack', userId: origin.userId },
      );
      await tell(
        { runtime, client },
        origin,
        'error' in result ? `:warning: ${esc(String(result.error))}` : done(esc(String(result.name ?? result.paused ?? result.resumed))),
      );
    });
  on(
    PAUSE_AUTOMATION_ACTION,
    'pause_automation',
    (name) => `:double_vertical_bar: Paused automation *${name}*: it starts nothing until resumed.`,
  );
  on(RESUME_AUTOMATION_ACTION, 'resume_automation', (name) => `:arrow_forward: Resumed automation *${name}*.`);
}
