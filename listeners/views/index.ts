import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { NEW_TASK_CALLBACK } from '../../src/slack/blocks/modals';

type Values = Record<string, Record<string, { value?: string | null; selected_option?: { value: string } | null; selected_options?: Array<{ value: string }> }>>;

/** The New task modal: validated in place (errors beside the field), then queued through create_task. */
export function registerViewListeners(app: App, { runtime }: ListenerDeps): void {
  app.view(NEW_TASK_CALLBACK, async ({ ack, view, body, client }) => {
    const values = view.state.values as Values;
    const project = values.project?.value?.selected_option?.value;
    const title = values.title?.value?.value?.trim() ?? '';
    const description = values.description?.value?.value?.trim() ?? '';
    const errors: Record<string, string> = {};
    if (!project) errors.project = 'Pick a project.';
    if (!title) errors.title = 'Give the task a title.';
    if (!description) errors.description = 'Describe the work: agents see only this.';
    if (Object.keys(errors).length) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const requiresApproval = (values.approval?.value?.selected_options ?? []).some((o) => o.value === 'requires_approval');
    const result = await runtime.handler.execute(
      'create_task',
      { project_id: project, title, description, requires_approval: requiresApproval },
      { source: 'slack', userId: body.user.id },
    );
    const text = 'error' in result ? `:warning: Could not queue the task: ${String(result.error)}` : `Queued task \`${String(result.created)}\` in ${project}: ${title}`;
    await client.chat.postMessage({ channel: body.user.id, text });
  });
}
