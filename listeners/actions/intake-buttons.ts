import type { App } from '@slack/bolt';
import { onAction } from './on-action';
import { INTAKE_BUTTONS } from '../../src/slack/blocks/action-ids';
import { intakeEditModal, proposalOf, triageRetryOf } from '../../src/slack/blocks/intake-proposal';
import { triageCandidate } from '../events/intake';
import { md } from '../../src/slack/blocks/text';
import type { ListenerDeps } from '../index';
import { originOfClick, tell } from './reply';

/**
 * Create / Edit / Dismiss on a task an intake proposed, and Try again on a failed triage. The commands take the click from the reporter,
 * the intake's owner or an admin, and apply the intake's rate limit, budget and log.
 */
export function registerIntakeButtons(app: App, { runtime }: ListenerDeps): void {
  onAction(app, INTAKE_BUTTONS.create, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const p = proposalOf(action.value);
    if (!p) return tell({ runtime, client }, origin, ':warning: This proposal cannot be read any more. Post the report again.');
    const result = await runtime.handler.execute(
      'create_intake_task',
      {
        automation_id: p.automationId,
        title: p.title,
        description: p.description,
        ...(p.priority !== undefined && { priority: p.priority }),
        reporter: p.reporter,
        ...(p.runId && { proposal_run: p.runId }),
        ...(p.report && { source_channel_id: p.report.channel, source_thread_ts: p.report.ts }),
      },
      { source: 'slack', userId: origin.userId, ...(p.sourceUrl && { sourceUrl: p.sourceUrl }) },
    );
    if ('error' in result) return tell({ runtime, client }, origin, md`:warning: ${result.error}`.text);
    await respond({
      replace_original: true,
      text: md`✅ <@${origin.userId ?? ''}> created task \`${result.created}\` *${p.title}* in *${result.project_id}*. Its progress and outcome show up in this thread.`
        .text,
    });
  });
  onAction(app, INTAKE_BUTTONS.edit, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const p = proposalOf(action.value);
    if (!p || origin.kind !== 'message' || !origin.messageTs) {
      return tell({ runtime, client }, origin, ':warning: This proposal cannot be read any more. Post the report again.');
    }
    await client.views.open({
      trigger_id: body.trigger_id,
      view: intakeEditModal(p, { channelId: origin.channelId, messageTs: origin.messageTs }),
    });
  });
  // Try again after the model did not answer: the message is read and triaged anew, under the
  // intake's filters, rate limit and budget as at first.
  onAction(app, INTAKE_BUTTONS.retry, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const r = triageRetryOf(action.value);
    if (!r) return tell({ runtime, client }, origin, ':warning: This message cannot be read any more. Post the report again.');
    await respond({ replace_original: true, text: md`<@${origin.userId ?? ''}> asked to triage this message again.`.text });
    await triageCandidate(runtime, client, r);
  });
  onAction(app, INTAKE_BUTTONS.dismiss, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const p = proposalOf(action.value);
    if (!p) return tell({ runtime, client }, origin, ':warning: This proposal cannot be read any more.');
    const result = await runtime.handler.execute(
      'dismiss_intake_proposal',
      { automation_id: p.automationId, reporter: p.reporter, ...(p.runId && { proposal_run: p.runId }) },
      { source: 'slack', userId: origin.userId },
    );
    if ('error' in result) return tell({ runtime, client }, origin, md`:warning: ${result.error}`.text);
    await respond({ replace_original: true, text: md`Dismissed by <@${origin.userId ?? ''}>: no task was created.`.text });
  });
}
