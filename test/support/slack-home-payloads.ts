/**
 * Payloads for clicks that do not come from a message: a button on the App Home (container
 * `view`, the view of type `home`) carries no response_url and no channel, as Slack documents
 * for block_actions from surfaces other than messages.
 */
import { APP_ID, nextTs, TEAM_ID } from './slack-payloads';

export interface HomeClickInput {
  actionId: string;
  value: string;
  userId?: string;
  blockId?: string;
}

export function homeBlockActions(input: HomeClickInput) {
  const userId = input.userId ?? 'U1';
  return {
    type: 'block_actions' as const,
    user: { id: userId, username: 'alice', name: 'alice', team_id: TEAM_ID },
    api_app_id: APP_ID,
    token: 'verification-token',
    container: { type: 'view', view_id: 'VHOME' },
    trigger_id: `${Date.now()}.1.homeTrigger`,
    team: { id: TEAM_ID, domain: 'example' },
    enterprise: null,
    is_enterprise_install: false,
    view: {
      id: 'VHOME',
      team_id: TEAM_ID,
      type: 'home',
      blocks: [],
      private_metadata: '',
      callback_id: '',
      state: { values: {} },
      hash: '1700000000.homehash',
      title: { type: 'plain_text', text: 'View Title', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: null,
      submit: null,
      previous_view_id: null,
      root_view_id: 'VHOME',
      app_id: APP_ID,
      external_id: '',
      app_installed_team_id: TEAM_ID,
      bot_id: 'BBOT',
    },
    actions: [
      {
        action_id: input.actionId,
        block_id: input.blockId ?? 'home1',
        text: { type: 'plain_text', text: 'Button', emoji: true },
        value: input.value,
        type: 'button',
        action_ts: nextTs(),
      },
    ],
  };
}
