import type { View } from '@slack/types';
import { plainText } from './text';

export const DENY_REQUEST_CALLBACK = 'aq_deny_request';

/** Where a Deny… click came from: the request, and the message to redraw once it is denied. */
export interface DenyContext {
  request_id: string;
  channel_id?: string;
  message_ts?: string;
}

/** The Deny modal: a reason the agent reads as the tool call's result. */
export function denyRequestModal(context: DenyContext): View {
  return {
    type: 'modal',
    callback_id: DENY_REQUEST_CALLBACK,
    private_metadata: JSON.stringify(context),
    title: plainText('Deny this tool call'),
    submit: plainText('Deny'),
    close: plainText('Cancel'),
    blocks: [
      {
        type: 'section',
        text: plainText('The agent will not run it. It gets your reason as the answer, so say what it should do instead.'),
      },
      {
        type: 'input',
        block_id: 'reason',
        label: plainText('Reason for the agent'),
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          multiline: true,
          max_length: 2000,
          placeholder: plainText('e.g. Use the staging database, never production.'),
        },
      },
    ],
  };
}

export function decodeDenyContext(metadata: string | undefined): DenyContext | null {
  try {
    const parsed = JSON.parse(metadata || '{}') as Record<string, unknown>;
    if (typeof parsed.request_id !== 'string') return null;
    return {
      request_id: parsed.request_id,
      ...(typeof parsed.channel_id === 'string' && { channel_id: parsed.channel_id }),
      ...(typeof parsed.message_ts === 'string' && { message_ts: parsed.message_ts }),
    };
  } catch {
    return null;
  }
}
