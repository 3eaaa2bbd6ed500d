import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { taskEntityOf, taskEntityUrl, taskIdOfEntity, taskNotFound } from '../../src/slack/blocks/work-object';

const log = (message: string) => console.error(message);

/**
 * A person opened a task's Work Object (`entity_details_requested`): the details pane gets the
 * task as get_task shows it now, or a not-found sentence for a task that is gone. A workspace
 * that refuses entity.presentDetails is noticed once (work_objects) and the request is left.
 */
export function registerEntityDetails(app: App, { runtime, surfaces }: ListenerDeps): void {
  app.event('entity_details_requested', async ({ event, client }) => {
    const taskId = taskIdOfEntity(event);
    const task = taskId
      ? await runtime.handler.execute('get_task', { task_id: taskId }, { source: 'slack', userId: event.user, channelId: event.channel })
      : null;
    const details =
      task && !('error' in task)
        ? {
            metadata: taskEntityOf(task, event.entity_url || taskEntityUrl(task.id, event.channel ?? null, runtime.config.slack.publicUrl)),
          }
        : { error: taskNotFound(taskId ?? event.entity_url) };
    await surfaces.features
      .attempt('work_objects', 'entity.presentDetails', () => client.entity.presentDetails({ trigger_id: event.trigger_id, ...details }))
      .catch((err) => log(`The details of task ${taskId ?? event.entity_url} were not shown: ${String(err)}`));
  });
}
