import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { registerChatConfirmations } from './chat-confirm';
import { registerHomeButtons } from './home-buttons';
import { registerRequestChanges } from './request-changes';
import { registerTaskButtons } from './task-buttons';
import { registerChatFeedback } from './chat-feedback';
import { registerAgentRequestButtons } from './agent-requests';
import { registerAutomationButtons } from './automation-buttons';
import { registerMergeTrainButtons } from './merge-train-buttons';
import { registerIntakeButtons } from './intake-buttons';
import { registerPlanCanvasButtons } from './plan-canvas-buttons';

/** Every button: task buttons, the Home's buttons, and Confirm / Cancel for the chat agent. */
export function registerActionListeners(app: App, deps: ListenerDeps): void {
  registerTaskButtons(app, deps);
  registerRequestChanges(app, deps);
  registerHomeButtons(app, deps);
  registerChatConfirmations(app, deps);
  registerChatFeedback(app, deps);
  registerAgentRequestButtons(app, deps);
  registerAutomationButtons(app, deps);
  registerMergeTrainButtons(app, deps);
  registerIntakeButtons(app, deps);
  registerPlanCanvasButtons(app, deps);
}
