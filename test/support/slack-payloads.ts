/**
 * Builders for the payloads Slack sends to an app, shaped like Slack's documented examples
 * (slash command fields, block_actions / view_submission interaction payloads, Events API
 * event_callback wrappers). Each object is also what a Socket Mode envelope carries as `payload`.
 * Identity defaults: team T1 "example", app A1, user U1 "alice", channel C1 "general", bot UBOT.
 */

export const TEAM_ID = 'T1';
export const APP_ID = 'A1';
export const BOT_USER_ID = 'UBOT';
const TOKEN = 'verification-token';

let tsCounter = 0;
/** A unique Slack-style timestamp ("1700000000.000123"), increasing on every call. */
export function nextTs(): string {
  tsCounter += 1;
  return `${1_700_000_000 + Math.floor(tsCounter / 1_000_000)}.${String(tsCounter % 1_000_000).padStart(6, '0')}`;
}

function triggerId(): string {
  return `${Date.now()}.${Math.floor(Math.random() * 1e9)}.fakeTrigger${Math.random().toString(36).slice(2, 8)}`;
}

// ---------------------------------------------------------------------------------------------
// Slash commands

export interface SlashCommandInput {
  text: string;
  responseUrl: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  channelName?: string;
  command?: string;
}

/** The fields of a slash command, as an object (what a Socket Mode `slash_commands` envelope carries). */
export function slashCommandFields(input: SlashCommandInput): Record<string, string> {
  return {
    token: TOKEN,
    team_id: TEAM_ID,
    team_domain: 'example',
    channel_id: input.channelId ?? 'C1',
    channel_name: input.channelName ?? 'general',
    user_id: input.userId ?? 'U1',
    user_name: input.userName ?? 'alice',
    command: input.command ?? '/aq',
    text: input.text,
    api_app_id: APP_ID,
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: triggerId(),
  };
}

/** A slash command as Slack posts it over HTTP: an application/x-www-form-urlencoded body. */
export function slashCommand(input: SlashCommandInput): string {
  return new URLSearchParams(slashCommandFields(input)).toString();
}

// ---------------------------------------------------------------------------------------------
// Interactivity

/** An interaction payload as Slack posts it over HTTP: the form field `payload=<JSON>`. */
export function interactionBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export interface BlockActionsInput {
  actionId: string;
  value: string;
  responseUrl: string;
  userId?: string;
  channelId?: string;
  messageTs?: string;
  blockId?: string;
  blocks?: unknown[];
  messageText?: string;
  isEphemeral?: boolean;
  /** The message's input state Slack sends with a click: { [block_id]: { [action_id]: { type, selected_options … } } }. */
  stateValues?: Record<string, Record<string, Record<string, unknown>>>;
}

/** A block_actions payload for a button click on a message. */
export function blockActions(input: BlockActionsInput) {
  const channelId = input.channelId ?? 'C1';
  const messageTs = input.messageTs ?? '1700000000.000100';
  const userId = input.userId ?? 'U1';
  return {
    type: 'block_actions' as const,
    user: { id: userId, username: 'alice', name: 'alice', team_id: TEAM_ID },
    api_app_id: APP_ID,
    token: TOKEN,
    container: { type: 'message', message_ts: messageTs, channel_id: channelId, is_ephemeral: input.isEphemeral ?? false },
    trigger_id: triggerId(),
    team: { id: TEAM_ID, domain: 'example' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channelId, name: 'general' },
    message: {
      type: 'message',
      user: BOT_USER_ID,
      bot_id: 'BBOT',
      ts: messageTs,
      text: input.messageText ?? 'task',
      team: TEAM_ID,
      blocks: input.blocks ?? [],
    },
    state: { values: input.stateValues ?? {} },
    response_url: input.responseUrl,
    actions: [
      {
        action_id: input.actionId,
        block_id: input.blockId ?? 'b1',
        text: { type: 'plain_text', text: 'Button', emoji: true },
        value: input.value,
        type: 'button',
        action_ts: nextTs(),
      },
    ],
  };
}

export interface ViewSubmissionInput {
  callbackId: string;
  /** state.values: { [block_id]: { [action_id]: { type, value | selected_option … } } } */
  values?: Record<string, Record<string, Record<string, unknown>>>;
  privateMetadata?: string;
  userId?: string;
  viewId?: string;
  blocks?: unknown[];
}

/** A view_submission payload (a modal's Submit button). */
export function viewSubmission(input: ViewSubmissionInput) {
  const viewId = input.viewId ?? 'V1';
  return {
    type: 'view_submission' as const,
    team: { id: TEAM_ID, domain: 'example' },
    user: { id: input.userId ?? 'U1', username: 'alice', name: 'alice', team_id: TEAM_ID },
    api_app_id: APP_ID,
    token: TOKEN,
    trigger_id: triggerId(),
    view: {
      id: viewId,
      team_id: TEAM_ID,
      type: 'modal',
      blocks: input.blocks ?? [],
      private_metadata: input.privateMetadata ?? '',
      callback_id: input.callbackId,
      state: { values: input.values ?? {} },
      hash: '1700000000.fakehash',
      title: { type: 'plain_text', text: 'Modal', emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: null,
      submit: { type: 'plain_text', text: 'Submit', emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: APP_ID,
      external_id: '',
      app_installed_team_id: TEAM_ID,
      bot_id: 'BBOT',
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

// ---------------------------------------------------------------------------------------------
// Events API

export interface EventCallbackOptions {
  eventId?: string;
  eventTime?: number;
}

let eventCounter = 0;

/**
 * The Events API wrapper around `event`. The second argument may be the event id alone
 * (older call sites) or `{ eventId, eventTime }`.
 */
export function eventCallback<E extends Record<string, unknown>>(event: E, options: string | EventCallbackOptions = {}) {
  const opts = typeof options === 'string' ? { eventId: options } : options;
  eventCounter += 1;
  return {
    token: TOKEN,
    team_id: TEAM_ID,
    context_team_id: TEAM_ID,
    api_app_id: APP_ID,
    event,
    type: 'event_callback' as const,
    event_id: opts.eventId ?? `Ev${String(eventCounter).padStart(4, '0')}${Math.random().toString(36).slice(2, 8).toUpperCase()}`,
    event_time: opts.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: TEAM_ID, user_id: BOT_USER_ID, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  };
}

export interface MessageInput {
  text: string;
  userId?: string;
  channelId?: string;
  ts?: string;
  threadTs?: string;
}

function richText(text: string) {
  return [{ type: 'rich_text', block_id: 'rt1', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] }];
}

/** An app_mention event (wrap it with eventCallback). Include `<@UBOT>` in `text` as Slack does. */
export function appMention(input: MessageInput) {
  const ts = input.ts ?? nextTs();
  return {
    type: 'app_mention' as const,
    user: input.userId ?? 'U1',
    text: input.text,
    ts,
    team: TEAM_ID,
    channel: input.channelId ?? 'C1',
    event_ts: ts,
    client_msg_id: `cm-${ts}`,
    blocks: richText(input.text),
    ...(input.threadTs && { thread_ts: input.threadTs }),
  };
}

/** A message.im event: a user's direct message to the app (channel_type 'im'). */
export function directMessage(input: MessageInput) {
  const ts = input.ts ?? nextTs();
  return {
    type: 'message' as const,
    channel: input.channelId ?? 'D1',
    user: input.userId ?? 'U1',
    text: input.text,
    ts,
    team: TEAM_ID,
    event_ts: ts,
    channel_type: 'im' as const,
    client_msg_id: `cm-${ts}`,
    blocks: richText(input.text),
    ...(input.threadTs && { thread_ts: input.threadTs }),
  };
}

/** app_home_opened: the user opened the app's Home (or Messages) tab. */
export function appHomeOpened(input: { userId?: string; tab?: 'home' | 'messages'; channelId?: string } = {}) {
  return {
    type: 'app_home_opened' as const,
    user: input.userId ?? 'U1',
    channel: input.channelId ?? 'D1',
    tab: input.tab ?? 'home',
    event_ts: nextTs(),
  };
}

/** assistant_thread_started: the person opened a new thread in the app's assistant panel. */
export function assistantThreadStarted(input: { userId?: string; channelId?: string; threadTs?: string; contextChannelId?: string } = {}) {
  return {
    type: 'assistant_thread_started' as const,
    assistant_thread: {
      user_id: input.userId ?? 'U1',
      context: { channel_id: input.contextChannelId, team_id: TEAM_ID, enterprise_id: null },
      channel_id: input.channelId ?? 'D1',
      thread_ts: input.threadTs ?? nextTs(),
    },
    event_ts: nextTs(),
  };
}

/** agent_session_stopped: the person pressed Slack's Stop on an agent session. */
export function agentSessionStopped(input: { channelId: string; threadTs: string; userId?: string; streamingTs?: string[] }) {
  return {
    type: 'agent_session_stopped' as const,
    channel: input.channelId,
    user: input.userId ?? 'U1',
    thread_ts: input.threadTs,
    streaming_message_ts: input.streamingTs ?? [],
    event_ts: nextTs(),
  };
}

/** A click on Slack's feedback buttons (a `feedback_buttons` element in a context_actions block). */
export function feedbackClick(input: {
  value: string;
  actionId: string;
  responseUrl: string;
  channelId?: string;
  messageTs?: string;
  userId?: string;
}) {
  const body = blockActions({ ...input });
  return { ...body, actions: [{ ...body.actions[0], type: 'feedback_buttons' as const, block_id: 'fb' }] };
}
