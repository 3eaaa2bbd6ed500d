/** Form fields of a slash command, shaped like Slack's documented payload. */
export function slashCommand(fields: { text: string; userId?: string; channelId?: string; responseUrl: string; command?: string }): string {
  return new URLSearchParams({
    token: 'verification-token',
    team_id: 'T1',
    team_domain: 'example',
    channel_id: fields.channelId ?? 'C1',
    channel_name: 'general',
    user_id: fields.userId ?? 'U1',
    user_name: 'alice',
    command: fields.command ?? '/aq',
    text: fields.text,
    api_app_id: 'A1',
    is_enterprise_install: 'false',
    response_url: fields.responseUrl,
    trigger_id: '123.456.abc',
  }).toString();
}

/** The fields of a slash command as an object (the Socket Mode payload). */
export function slashCommandFields(fields: { text: string; userId?: string; channelId?: string; responseUrl: string }): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(slashCommand(fields)));
}

/** A block_actions payload for a button press, shaped like Slack's. */
export function blockActions(fields: { actionId: string; value: string; userId?: string; channelId?: string; messageTs?: string; responseUrl: string }) {
  return {
    type: 'block_actions',
    user: { id: fields.userId ?? 'U1', username: 'alice', name: 'alice', team_id: 'T1' },
    api_app_id: 'A1',
    token: 'verification-token',
    container: { type: 'message', message_ts: fields.messageTs ?? '1700000000.000100', channel_id: fields.channelId ?? 'C1', is_ephemeral: false },
    trigger_id: '123.456.abc',
    team: { id: 'T1', domain: 'example' },
    channel: { id: fields.channelId ?? 'C1', name: 'general' },
    message: { type: 'message', ts: fields.messageTs ?? '1700000000.000100', text: 'task', blocks: [] },
    response_url: fields.responseUrl,
    actions: [{ action_id: fields.actionId, block_id: 'b1', type: 'button', value: fields.value, action_ts: '1700000001.000200', text: { type: 'plain_text', text: 'x' } }],
  };
}

/** An event_callback envelope around `event`. */
export function eventCallback(event: Record<string, unknown>, eventId = `Ev${Math.random().toString(36).slice(2, 10)}`) {
  return {
    token: 'verification-token',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: eventId,
    event_time: 1_700_000_000,
    authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
    event,
  };
}
