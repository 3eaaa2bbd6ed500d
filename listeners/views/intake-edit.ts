import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { editedProposalOf } from '../../src/slack/blocks/intake-proposal';
import { MODAL_CALLBACKS } from '../../src/slack/blocks/home-modals';
import { md } from '../../src/slack/blocks/text';
import { tell } from '../actions/reply';
import { modalValues } from './values';

/**
 * The Edit modal of an intake proposal: what the person wrote becomes the task, through
 * create_intake_task (the reporter, the intake's owner or an admin; its rate limit, budget and
 * log), and the proposal message then says who created it, as a Create click does.
 */
export function registerIntakeEditModal(app: App, { runtime }: ListenerDeps): void {
  app.view(MODAL_CALLBACKS.intakeEdit, async ({ ack, view, body, client }) => {
    const v = modalValues(view);
    const title = v.text('title');
    const description = v.text('description');
    const priority = v.text('priority');
    const errors: Record<string, string> = {};
    if (!title) errors.title = 'Give the task a title.';
    if (!description) errors.description = 'Describe the work: agents see only this.';
    if (priority && !/^\d+$/.test(priority)) errors.priority = 'A whole number, 0 or more (lower runs first).';
    if (Object.keys(errors).length) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const edited = editedProposalOf(view.private_metadata);
    const userId = body.user.id;
    if (!edited) {
      await tell(
        { runtime, client },
        { kind: 'direct', userId },
        ':warning: This proposal cannot be read any more. Post the report again.',
      );
      return;
    }
    const { proposal: p, where } = edited;
    const origin = { kind: 'message' as const, userId, channelId: where.channelId };
    const result = await runtime.handler.execute(
      'create_intake_task',
      {
        automation_id: p.automationId,
        title,
        description,
        ...(priority && { priority: Number(priority) }),
        reporter: p.reporter,
        ...(p.runId && { proposal_run: p.runId }),
        ...(p.report && { source_channel_id: p.report.channel, source_thread_ts: p.report.ts }),
      },
      { source: 'slack', userId, ...(p.sourceUrl && { sourceUrl: p.sourceUrl }) },
    );
    if ('error' in result) return tell({ runtime, client }, origin, md`:warning: ${result.error}`.text);
    await client.chat.update({
      channel: where.channelId,
      ts: where.messageTs,
      text: md`✅ <@${userId}> created task \`${result.created}\` *${title}* in *${result.project_id}* (edited from the proposal). Its progress and outcome show up in this thread.`
        .text,
      blocks: [],
    });
  });
}
