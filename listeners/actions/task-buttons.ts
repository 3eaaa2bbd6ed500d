import type { App, BlockButtonAction } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { renderResult } from '../../src/slack/blocks/render';
import { taskDetailBlocks, taskListBlocks } from '../../src/slack/blocks/tasks';

/** Button → command, and the words for the note left on the message. */
const TASK_ACTIONS: Record<string, { command: string; done: string; expects: string[] }> = {
  aq_approve_task: { command: 'approve_task', done: 'Approved', expects: ['AWAITING_APPROVAL'] },
  aq_skip_task: { command: 'skip_task', done: 'Skipped', expects: ['BLOCKED', 'FAILED', 'AWAITING_APPROVAL'] },
  aq_restart_task: { command: 'restart_task', done: 'Restarted', expects: ['DEFINED', 'READY', 'ASSIGNED', 'WAITING_INPUT', 'PAUSED', 'AWAITING_APPROVAL', 'FAILED', 'BLOCKED'] },
  aq_stop_task: { command: 'stop_task', done: 'Stopped', expects: ['IN_PROGRESS'] },
};

/**
 * Task buttons run their command as the person who clicked, then redraw the message from the
 * task's current state. A stale button (state changed, double click) gets a polite note.
 */
export function registerTaskButtons(app: App, { runtime }: ListenerDeps): void {
  for (const [actionId, spec] of Object.entries(TASK_ACTIONS)) {
    app.action<BlockButtonAction>(actionId, async ({ ack, body, action, respond }) => {
      await ack();
      const taskId = action.value ?? '';
      const actor = { source: 'slack' as const, userId: body.user.id, channelId: body.channel?.id };
      const before = await runtime.handler.execute('get_task', { task_id: taskId }, actor);
      if ('error' in before) {
        await respond({ response_type: 'ephemeral', replace_original: false, text: `That task no longer exists (${taskId}).` });
        return;
      }
      let note: string;
      if (!spec.expects.includes(String(before.status))) {
        note = `Nothing to do: the task is already ${String(before.status)}.`;
        await respond({ response_type: 'ephemeral', replace_original: false, text: `${note} The message now shows its current state.` });
      } else {
        const result = await runtime.handler.execute(spec.command, { task_id: taskId }, actor);
        if ('error' in result) {
          await respond({ response_type: 'ephemeral', replace_original: false, text: `:warning: ${String(result.error)}` });
          note = `${spec.done} failed for <@${body.user.id}>.`;
        } else {
          note = `${spec.done} by <@${body.user.id}>.`;
        }
      }
      const after = await runtime.handler.execute('get_task', { task_id: taskId }, actor);
      if (!('error' in after)) await respond({ replace_original: true, ...taskDetailBlocks(after, note) });
    });
  }

  app.action<BlockButtonAction>('aq_get_agent_error', async ({ ack, body, action, respond }) => {
    await ack();
    const result = await runtime.handler.execute('get_agent_error', { task_id: action.value ?? '' }, { source: 'slack', userId: body.user.id });
    await respond({ response_type: 'ephemeral', replace_original: false, ...renderResult('get_agent_error', {}, result) });
  });

  for (const direction of ['prev', 'next']) {
    app.action<BlockButtonAction>(`aq_tasks_page_${direction}`, async ({ ack, body, action, respond }) => {
      await ack();
      const { offset, ...filter } = JSON.parse(action.value ?? '{}') as { offset?: number; project_id?: string; status?: string };
      const result = await runtime.handler.execute('list_tasks', filter, { source: 'slack', userId: body.user.id });
      if ('error' in result) return void (await respond({ response_type: 'ephemeral', replace_original: false, text: `:warning: ${String(result.error)}` }));
      await respond({ replace_original: true, ...taskListBlocks(result as never, filter, offset ?? 0) });
    });
  }
}
