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
