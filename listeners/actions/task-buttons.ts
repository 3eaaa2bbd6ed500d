import type { App, BlockButtonAction } from '@slack/bolt';
import { onAction } from './on-action';
import { TASK_BUTTONS } from '../../src/slack/blocks/action-ids';
import { getTask } from '../../src/commands/tasks';
import type { ListenerDeps } from '../index';
import { renderResult } from '../../src/slack/blocks/render';
import { TASK_PAGE_SIZE, taskDetailBlocks, taskListBlocks } from '../../src/slack/blocks/tasks';
import { statusWords } from '../../src/slack/blocks/cards-format';
import { esc } from '../../src/slack/blocks/common';
import { approvalHeldMessage } from '../../src/slack/blocks/plan-canvas-edits';
import { originOfClick, redraw, tell, type Origin, type ReplyDeps } from './reply';

/** Button → command, what it says when done, and the states in which it still makes sense. */
type TaskActionCommand = 'approve_task' | 'skip_task' | 'restart_task' | 'stop_task';

const TASK_ACTIONS: Record<string, { command: TaskActionCommand; verb: string; done: string; expects: string[] }> = {
  [TASK_BUTTONS.approve]: { command: 'approve_task', verb: 'approve', done: 'Approved', expects: ['AWAITING_APPROVAL'] },
  [TASK_BUTTONS.skip]: { command: 'skip_task', verb: 'skip', done: 'Skipped', expects: ['BLOCKED', 'FAILED'] },
  [TASK_BUTTONS.restart]: {
    command: 'restart_task',
    verb: 'restart',
    done: 'Restarted',
    expects: ['DEFINED', 'READY', 'ASSIGNED', 'WAITING_INPUT', 'PAUSED', 'AWAITING_APPROVAL', 'FAILED', 'BLOCKED'],
  },
  [TASK_BUTTONS.stop]: { command: 'stop_task', verb: 'stop', done: 'Stopped', expects: ['IN_PROGRESS', 'WAITING_INPUT'] },
};

/** What an approval did to the task's landing ("Queued for landing: #2 in the merge train."), after a space; empty otherwise. */
function landingWords(result: Record<string, unknown>): string {
  return typeof result.landing === 'string' ? ` ${esc(result.landing)}` : '';
}

/** What a click did: the note for the person who clicked, and the line left on a redrawn message. */
interface Outcome {
  ok: boolean;
  note: string;
  stamp: string;
}

/** Notes on a thread root are left to the notifier, which redraws the root on the task's events. */
const isThreadRoot = (body: BlockButtonAction) => body.actions[0]?.block_id?.startsWith('root:') === true;

/**
 * Task buttons run their command as the person who clicked, re-checking the task's state first
 * (a stale button or a double click gets a polite note), then show the outcome where the click
 * happened: the message is redrawn from the task's current state, the Home is refreshed.
 */
export function registerTaskButtons(app: App, { runtime, surfaces }: ListenerDeps): void {
  for (const [actionId, spec] of Object.entries(TASK_ACTIONS)) {
    onAction(app, actionId, async ({ body, action, respond, client }) => {
      const deps: ReplyDeps = { runtime, client };
      const origin = originOfClick(body, respond);
      const taskId = action.value ?? '';
      const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
      const before = await runtime.handler.executeCommand(getTask, { task_id: taskId }, actor);
      if ('error' in before) {
        await tell(deps, origin, `:grey_question: That task no longer exists (\`${esc(taskId)}\`).`);
        return;
      }
      // The rule of the task's project, whatever channel the click came from: a refusal changes nothing.
      const refusal = await runtime.handler.taskRefusal(taskId, spec.verb, actor);
      if (refusal) {
        await tell(deps, origin, `:no_entry: ${esc(refusal)}`);
        return;
      }
      if (spec.command === 'approve_task') {
        // A plan edited in its canvas is applied or discarded before the task that made it is approved.
        const held = await surfaces.planCanvases.beforeApproval(client, taskId, actor);
        if (held) {
          const message = approvalHeldMessage(held);
          await tell(deps, origin, message.text, message.blocks);
          return;
        }
      }
      const title = `*${esc(before.title)}*`;
      let outcome: Outcome;
      if (!spec.expects.includes(String(before.status))) {
        const note = `Nothing to do: ${title} is already ${statusWords(before.status)}.`;
        outcome = { ok: false, note: `:information_source: ${note}`, stamp: `${note} This message shows its current state.` };
      } else {
        const result = await runtime.handler.execute(spec.command, { task_id: taskId }, actor);
        outcome =
          'error' in result
            ? {
                ok: false,
                note: `:warning: Could not ${spec.verb} ${title}: ${esc(result.error)} See \`/aq help ${spec.command}\`.`,
                stamp: `${spec.done} failed for <@${body.user.id}>.`,
              }
            : {
                ok: true,
                note: `:white_check_mark: ${spec.done} ${title}.${landingWords(result)}`,
                stamp: `${spec.done} by <@${body.user.id}>.${landingWords(result)}`,
              };
      }
      await answer(deps, origin, body, taskId, outcome, actor);
    });
  }

  onAction(app, TASK_BUTTONS.agentError, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const result = await runtime.handler.execute(
      'get_agent_error',
      { task_id: action.value ?? '' },
      { source: 'slack', userId: body.user.id },
    );
    const rendered = renderResult('get_agent_error', {}, result);
    if (origin.kind === 'home' && !('error' in result)) {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: {
          type: 'modal',
          title: { type: 'plain_text', text: 'Why it stopped' },
          close: { type: 'plain_text', text: 'Close' },
          blocks: rendered.blocks.slice(0, 100),
        },
      });
      return;
    }
    await tell({ runtime, client }, origin, rendered.text, rendered.blocks);
  });

  for (const actionId of [TASK_BUTTONS.pagePrev, TASK_BUTTONS.pageNext]) {
    onAction(app, actionId, async ({ body, action, respond, client }) => {
      const origin = originOfClick(body, respond);
      const { offset, ...filter } = JSON.parse(action.value ?? '{}') as { offset?: number; project_id?: string; status?: string };
      const result = await runtime.handler.execute(
        'list_tasks',
        { ...filter, offset: offset ?? 0, limit: TASK_PAGE_SIZE },
        { source: 'slack', userId: body.user.id },
      );
      if ('error' in result) return tell({ runtime, client }, origin, `:warning: ${esc(result.error)}`);
      await redraw({ runtime, client }, origin, taskListBlocks(result as never, filter, offset ?? 0));
    });
  }
}

/** The outcome where the click happened: a refreshed Home with the note, or the redrawn message. */
async function answer(
  deps: ReplyDeps,
  origin: Origin,
  body: BlockButtonAction,
  taskId: string,
  outcome: Outcome,
  actor: { source: 'slack'; userId: string },
): Promise<void> {
  if (origin.kind !== 'message' || isThreadRoot(body)) {
    await tell(deps, origin, outcome.note);
    return;
  }
  if (!outcome.ok) await tell(deps, origin, outcome.note);
  const after = await deps.runtime.handler.executeCommand(getTask, { task_id: taskId }, actor);
  if (!('error' in after)) await redraw(deps, origin, taskDetailBlocks(after, outcome.stamp));
}
