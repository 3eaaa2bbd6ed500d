import type { App } from '@slack/bolt';
import { getTask } from '../../src/commands/tasks';
import type { ListenerDeps } from '../index';
import { decodeOrigin, MODAL_CALLBACKS } from '../../src/slack/blocks/home-modals';
import { esc } from '../../src/slack/blocks/common';
import { renderResult } from '../../src/slack/blocks/render';
import { originOfModal, tell } from '../actions/reply';
import { modalValues } from './values';

/**
 * The New task modal: checked in place (errors beside the field), then queued through
 * create_task, creating the project first when there was none. The outcome is told where the
 * modal was opened: the Home, the channel, or a direct message.
 */
export function registerNewTaskModal(app: App, { runtime }: ListenerDeps): void {
  app.view(MODAL_CALLBACKS.newTask, async ({ ack, view, body, client }) => {
    const v = modalValues(view);
    const newProject = v.text('new_project');
    const project = v.selected('project');
    const title = v.text('title');
    const description = v.text('description');
    const priorityText = v.text('priority');
    const errors: Record<string, string> = {};
    const createsProject = 'new_project' in view.state.values;
    if (createsProject && !newProject) errors.new_project = 'Name the project to create.';
    if (!createsProject && !project) errors.project = 'Pick a project.';
    if (!title) errors.title = 'Give the task a title.';
    if (!description) errors.description = 'Describe the work: agents see only this.';
    if (priorityText && !/^\d+$/.test(priorityText)) errors.priority = 'A whole number, 0 or more (lower runs first).';
    if (Object.keys(errors).length) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const deps = { runtime, client };
    const origin = originOfModal(decodeOrigin(view.private_metadata), body.user.id);
    const actor = { source: 'slack' as const, userId: body.user.id, ...(origin.kind === 'message' && { channelId: origin.channelId }) };
    let projectId = project;
    if (!projectId) {
      const created = await runtime.handler.execute('create_project', { name: newProject }, actor);
      if ('error' in created) {
        await tell(
          deps,
          origin,
          `:warning: Could not create the project ${esc(newProject)}, so the task was not queued: ${esc(created.error)} See \`/aq help create_project\`.`,
        );
        return;
      }
      projectId = String(created.created);
    }
    const dependsOn = v.list('depends_on');
    const result = await runtime.handler.execute(
      'create_task',
      {
        project_id: projectId,
        title,
        description,
        requires_approval: v.checked('approval', 'requires_approval'),
        ...(priorityText && { priority: Number(priorityText) }),
        ...(dependsOn.length && { depends_on: dependsOn }),
      },
      actor,
    );
    if ('error' in result) {
      await tell(deps, origin, `:warning: Could not queue the task: ${esc(result.error)} See \`/aq help create_task\`.`);
      return;
    }
    const note = `:white_check_mark: Queued *${esc(title)}* (\`${esc(result.created)}\`) in ${esc(projectId)}.`;
    if (origin.kind === 'home') return tell(deps, origin, note);
    const card = await runtime.handler.executeCommand(getTask, { task_id: String(result.created) }, actor);
    const rendered = 'error' in card ? null : renderResult('get_task', {}, card);
    await tell(deps, origin, note, rendered ? [{ type: 'section', text: { type: 'mrkdwn', text: note } }, ...rendered.blocks] : undefined);
  });
}
