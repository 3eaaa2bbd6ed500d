import type { BlockAction, RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ListenerRuntime } from '../index';
import { publishHome } from '../../src/slack/home';
import type { ModalOrigin } from '../../src/slack/blocks/home-modals';

/**
 * Where a click came from, which decides how to answer it. A click on the App Home (or in a
 * modal) has no response_url, so `respond` exists only for clicks on messages.
 */
export type Origin =
  | { kind: 'home'; userId: string }
  | { kind: 'message'; userId: string; channelId: string; messageTs?: string; respond?: RespondFn }
  | { kind: 'direct'; userId: string };

export function originOfClick(body: BlockAction, respond: RespondFn | undefined): Origin {
  const userId = body.user.id;
  if (body.view?.type === 'home') return { kind: 'home', userId };
  const channelId = body.channel?.id ?? (body.container as { channel_id?: string } | undefined)?.channel_id;
  if (channelId && !body.view) {
    const messageTs = body.message?.ts ?? (body.container as { message_ts?: string } | undefined)?.message_ts;
    return { kind: 'message', userId, channelId, ...(messageTs && { messageTs }), ...(body.response_url && respond && { respond }) };
  }
  return { kind: 'direct', userId };
}

export function originOfModal(origin: ModalOrigin, userId: string): Origin {
  if (origin.from === 'home') return { kind: 'home', userId };
  if (origin.from === 'channel') return { kind: 'message', userId, channelId: origin.channel_id };
  return { kind: 'direct', userId };
}

/** The modal origin that answers back where this click happened. */
export function modalOriginFor(origin: Origin): ModalOrigin {
  if (origin.kind === 'home') return { from: 'home' };
  if (origin.kind === 'message') return { from: 'channel', channel_id: origin.channelId };
  return { from: 'unknown' };
}

export interface ReplyDeps {
  runtime: ListenerRuntime;
  client: WebClient;
}

const log = (m: string) => console.error(m);

/**
 * Tells the person what happened (`text` is our own mrkdwn, values already escaped): on the Home
 * as a note at the top of a refreshed dashboard, in a channel as a message only they see, and
 * otherwise (or when the channel refuses) by direct message.
 */
export async function tell({ runtime, client }: ReplyDeps, origin: Origin, text: string, blocks?: KnownBlock[]): Promise<void> {
  if (origin.kind === 'home') return publishHome(client, runtime, origin.userId, text, log);
  const message = { text, ...(blocks && { blocks }) };
  if (origin.kind === 'message') {
    try {
      if (origin.respond) await origin.respond({ response_type: 'ephemeral', replace_original: false, ...message });
      else await client.chat.postEphemeral({ channel: origin.channelId, user: origin.userId, ...message });
      return;
    } catch (err) {
      log(`Could not answer in ${origin.channelId}, sending a direct message instead: ${String(err)}`);
    }
  }
  await client.chat
    .postMessage({ channel: origin.userId, ...message })
    .catch((err) => log(`Direct message to ${origin.userId} failed: ${String(err)}`));
}

/** Replaces the clicked message (through response_url, else chat.update); no-op for other origins. */
export async function redraw({ client }: ReplyDeps, origin: Origin, message: { text: string; blocks: KnownBlock[] }): Promise<void> {
  if (origin.kind !== 'message') return;
  try {
    if (origin.respond) await origin.respond({ replace_original: true, ...message });
    else if (origin.messageTs) await client.chat.update({ channel: origin.channelId, ts: origin.messageTs, ...message });
  } catch (err) {
    log(`Could not redraw the message in ${origin.channelId}: ${String(err)}`);
  }
}
