import type { View } from '@slack/types';

export const NEW_TASK_CALLBACK = 'aq_new_task';

/** A modal to queue a task: project, title, description, approval. */
export function newTaskModal(projects: Array<{ id: string; name: string }>, selectedProject?: string | null): View {
  const options = projects.slice(0, 100).map((p) => ({ text: { type: 'plain_text' as const, text: p.name.slice(0, 75) }, value: p.id }));
  const initial = options.find((o) => o.value === selectedProject);
  return {
    type: 'modal',
    callback_id: NEW_TASK_CALLBACK,
    title: { type: 'plain_text', text: 'New task' },
    submit: { type: 'plain_text', text: 'Queue it' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'project',
        label: { type: 'plain_text', text: 'Project' },
        element: { type: 'static_select', action_id: 'value', options, ...(initial && { initial_option: initial }) },
      },
      {
        type: 'input',
        block_id: 'title',
        label: { type: 'plain_text', text: 'Title' },
        element: { type: 'plain_text_input', action_id: 'value', max_length: 200 },
      },
      {
        type: 'input',
        block_id: 'description',
        label: { type: 'plain_text', text: 'What should the agent do?' },
        hint: { type: 'plain_text', text: 'Agents see only this: say what, where, and how to tell it is done.' },
        element: { type: 'plain_text_input', action_id: 'value', multiline: true },
      },
      {
        type: 'input',
        block_id: 'approval',
        optional: true,
        label: { type: 'plain_text', text: 'Review' },
        element: {
          type: 'checkboxes',
          action_id: 'value',
          options: [{ text: { type: 'plain_text', text: 'Open a pull request and wait for approval' }, value: 'requires_approval' }],
        },
      },
    ],
  };
}
