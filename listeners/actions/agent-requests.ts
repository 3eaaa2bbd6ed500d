import type { App, BlockAction, BlockButtonAction } from '@slack/bolt';
import { onAction } from './on-action';
import type { KnownBlock } from '@slack/types';
import type { ListenerDeps } from '../index';
import type { ArgsOf } from '../../src/commands/catalog';
import type { answerAgentRequestCommand } from '../../src/commands/agent-requests';
import { esc } from '../../src/slack/blocks/common';
import { person, settledRequestBlocks } from '../../src/slack/blocks/cards-requests';
import { REQUEST_ACTIONS } from '../../src/slack/blocks/action-ids';
import { denyRequestModal } from '../../src/slack/blocks/request-modals';
import { txt, type Line } from '../../src/slack/blocks/text';
import { originOfClick, redraw, tell, type ReplyDeps } from './reply';

const STAMPS: Record<string, string> = { allow: 'Allowed once', always: 'Always allowed for this project', answer: 'Answered' };

/** The clicked request message, its buttons replaced by who did what. */
function settled(body: BlockButtonAction, stamp: Line, onlyClickedRow: boolean): { text: string; blocks: KnownBlock[] } {
  const message = body.message as { text?: string; blocks?: KnownBlock[] } | undefined;
  const row = onlyClickedRow ? body.actions[0]?.block_id : undefined;
  return { text: message?.text ?? ' ', blocks: settledRequestBlocks(message?.blocks ?? [], stamp, row) };
}

/** The option indexes ticked in the checkboxes of the clicked row (Slack sends the message's state with the click). */
function tickedOptions(body: BlockButtonAction, blockId: string): number[] {
  const row = body.state?.values?.[blockId] ?? {};
  return Object.values(row)
    .filter((input) => input.type === 'checkboxes')
    .flatMap((input) => input.selected_options ?? [])
    .map((o) => Number(o.value))
    .filter((i) => Number.isInteger(i) && i >= 0);
}

/**
 * The buttons of an agent's question or permission request: each runs answer_agent_request as
 * the person who clicked (who may steer the project), then the message shows who answered.
 * A stale button (answered, timed out, task stopped) gets a polite note instead.
 */
export function registerAgentRequestButtons(app: App, { runtime }: ListenerDeps): void {
  const answer = async (
    body: BlockButtonAction,
    deps: ReplyDeps,
    origin: ReturnType<typeof originOfClick>,
    args: ArgsOf<typeof answerAgentRequestCommand>,
  ) => {
    const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
    const result = await runtime.handler.execute('answer_agent_request', args, actor);
    if ('error' in result) {
      await tell(deps, origin, `:information_source: ${esc(result.error)}`);
      return;
    }
    const done: Line = [txt(`${STAMPS[String(args.decision)] ?? 'Answered'} by `), person(body.user.id)];
    const open = result.status === 'pending';
    if (open) done.push(txt(' (other questions still open)'));
    await redraw(deps, origin, settled(body, done, open));
  };

  for (const decision of ['allow', 'always'] as const) {
    onAction(app, REQUEST_ACTIONS[decision], async ({ body, action, respond, client }) => {
      const deps = { runtime, client };
      await answer(body, deps, originOfClick(body, respond), { request_id: action.value ?? '', decision });
    });
  }

  onAction(
    app,
    REQUEST_ACTIONS.optionPrefix,
    async ({ body, action, respond, client }) => {
      const [requestId, question, option] = (action.value ?? '').split(':');
      await answer(body, { runtime, client }, originOfClick(body, respond), {
        request_id: requestId,
        decision: 'answer',
        question_index: question,
        option_index: option,
      });
    },
    { prefix: true },
  );

  // Ticking a box only changes the message's state; Submit reads every ticked box at once.
  onAction<BlockAction>(app, REQUEST_ACTIONS.choices, async () => undefined);

  onAction(app, REQUEST_ACTIONS.submitChoices, async ({ body, action, respond, client }) => {
    const [requestId, question] = (action.value ?? '').split(':');
    const origin = originOfClick(body, respond);
    const chosen = tickedOptions(body, action.block_id);
    if (!chosen.length) {
      await tell(
        { runtime, client },
        origin,
        ':ballot_box_with_check: Tick at least one option, then press Submit (or reply in the thread).',
      );
      return;
    }
    await answer(body, { runtime, client }, origin, {
      request_id: requestId,
      decision: 'answer',
      question_index: question,
      option_indexes: chosen,
    });
  });

  onAction(app, REQUEST_ACTIONS.deny, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const requestId = action.value ?? '';
    await client.views.open({
      trigger_id: body.trigger_id,
      view: denyRequestModal({
        request_id: requestId,
        ...(origin.kind === 'message' && { channel_id: origin.channelId, ...(origin.messageTs && { message_ts: origin.messageTs }) }),
      }),
    });
  });
}
