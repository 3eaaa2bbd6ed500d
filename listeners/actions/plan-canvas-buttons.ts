import type { App } from '@slack/bolt';
import { PLAN_CANVAS_BUTTONS } from '../../src/slack/blocks/action-ids';
import { canvasEditsMessage } from '../../src/slack/blocks/plan-canvas-edits';
import type { ListenerDeps } from '../index';
import { onAction } from './on-action';
import { originOfClick, tell } from './reply';

/**
 * A plan canvas's buttons: Apply canvas edits reads the canvas back and shows the person what
 * their edits change; Apply these changes runs revise_plan as them (its steering rule decides)
 * on the canvas they saw; Discard puts the plan back in the canvas. Only they see the answers.
 */
export function registerPlanCanvasButtons(app: App, { runtime, surfaces }: ListenerDeps): void {
  const canvases = surfaces.planCanvases;
  onAction(app, PLAN_CANVAS_BUTTONS.check, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const edits = await canvases.edits(client, action.value ?? '', { source: 'slack', userId: origin.userId });
    const message = canvasEditsMessage(edits);
    await tell({ runtime, client }, origin, message.text, message.blocks);
  });
  onAction(app, PLAN_CANVAS_BUTTONS.apply, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const [taskId = '', hash = ''] = (action.value ?? '').split(' ');
    const result = await canvases.apply(client, taskId, hash, { source: 'slack', userId: origin.userId });
    const message = canvasEditsMessage(result);
    await tell({ runtime, client }, origin, message.text, message.blocks);
  });
  onAction(app, PLAN_CANVAS_BUTTONS.discard, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    await canvases.discard(client, action.value ?? '');
    await tell({ runtime, client }, origin, 'The plan canvas shows the plan again; your edits there were dropped.');
  });
}
