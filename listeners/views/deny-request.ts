import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { esc } from '../../src/slack/blocks/common';
import { permissionPost, person, settledRequestBlocks } from '../../src/slack/blocks/cards-requests';
import { decodeDenyContext, DENY_REQUEST_CALLBACK } from '../../src/slack/blocks/request-modals';
import { txt } from '../../src/slack/blocks/text';
import { tell } from '../actions/reply';
import { modalValues } from './values';

/** The Deny modal of a permission request: the reason goes to the agent (answer_agent_request). */
export function registerDenyRequestModal(app: App, { runtime }: ListenerDeps): void {
  app.view(DENY_REQUEST_CALLBACK, async ({ ack, view, body, client }) => {
    const reason = modalValues(view).text('reason');
    if (!reason) {
      await ack({ response_action: 'errors', errors: { reason: 'Say why, so the agent can do something else.' } });
      return;
    }
    await ack();
    const context = decodeDenyContext(view.private_metadata);
    const userId = body.user.id;
    const origin = context?.channel_id
      ? ({ kind: 'message', userId, channelId: context.channel_id } as const)
      : ({ kind: 'direct', userId } as const);
    const actor = { source: 'slack' as const, userId, ...(context?.channel_id && { channelId: context.channel_id }) };
    const result = await runtime.handler.execute(
      'answer_agent_request',
      { request_id: context?.request_id ?? '', decision: 'deny', reason },
      actor,
    );
    if ('error' in result) {
      await tell({ runtime, client }, origin, `:information_source: The tool call was not denied: ${esc(result.error)}`);
      return;
    }
    if (context?.channel_id && context.message_ts) {
      // The request message keeps what it asked; its buttons make way for the decision.
      const shown = permissionPost({ ...result.request, request_id: result.request.id, title: result.title });
      await client.chat
        .update({
          channel: context.channel_id,
          ts: context.message_ts,
          text: shown.text,
          blocks: settledRequestBlocks(shown.blocks, [txt('Denied by '), person(userId)]),
        })
        .catch((err) => console.error(`Could not redraw the request in ${context.channel_id}: ${String(err)}`));
    }
  });
}
