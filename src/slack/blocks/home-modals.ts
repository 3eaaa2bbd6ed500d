import type { KnownBlock, PlainTextOption, View } from '@slack/types';
import { clip } from './common';
import { plainText } from './text';

export const MODAL_CALLBACKS = {
  newTask: 'aq_new_task',
  newProject: 'aq_new_project',
  addRepo: 'aq_add_repo',
  requestChanges: 'aq_request_changes',
  intakeEdit: 'aq_intake_edit_modal',
  intakeSetup: 'aq_intake_setup',
} as const;

/** Where a modal was opened from, so its outcome is told there (kept in private_metadata). */
export type ModalOrigin = { from: 'home' } | { from: 'channel'; channel_id: string } | { from: 'unknown' };

export function encodeOrigin(origin: ModalOrigin): string {
  return JSON.stringify(origin);
}

export function decodeOrigin(metadata: string | undefined): ModalOrigin {
  try {
    const parsed = JSON.parse(metadata || '{}') as Partial<ModalOrigin> & { channel_id?: unknown };
    if (parsed.from === 'home') return { from: 'home' };
    if (parsed.from === 'channel' && typeof parsed.channel_id === 'string') return { from: 'channel', channel_id: parsed.channel_id };
  } catch {
    // Not ours: answer by direct message.
  }
  return { from: 'unknown' };
}

/** A select option (plain text: literal, within Slack's 75 characters). */
export function option(text: string, value: string): PlainTextOption {
  return { text: plainText(clip(text || value, 75)), value: value.slice(0, 150) };
}

export function textInput(
  blockId: string,
  label: string,
  opts: { multiline?: boolean; optional?: boolean; hint?: string; placeholder?: string; initial?: string; max?: number } = {},
): KnownBlock {
  return {
    type: 'input',
    block_id: blockId,
    label: plainText(label),
    optional: opts.optional ?? false,
    ...(opts.hint && { hint: plainText(opts.hint) }),
    element: {
      type: 'plain_text_input',
      action_id: 'value',
      ...(opts.multiline && { multiline: true }),
      ...(opts.placeholder && { placeholder: plainText(opts.placeholder) }),
      ...(opts.initial && { initial_value: opts.initial }),
      ...(opts.max && { max_length: opts.max }),
    },
  };
}

export function projectSelect(projects: Array<{ id: string; name: string }>, selected?: string | null): KnownBlock {
  const options = projects.slice(0, 100).map((p) => option(p.name === p.id ? p.name : `${p.name} (${p.id})`, p.id));
  const initial = options.find((o) => o.value === selected) ?? (options.length === 1 ? options[0] : undefined);
  return {
    type: 'input',
    block_id: 'project',
    label: plainText('Project'),
    element: {
      type: 'static_select',
      action_id: 'value',
      options,
      placeholder: plainText('Pick a project'),
      ...(initial && { initial_option: initial }),
    },
  };
}

export interface NewTaskModalInput {
  projects: Array<{ id: string; name: string }>;
  /** The project to preselect (the channel's project). */
  selectedProject?: string | null;
  /** Unfinished tasks this one may wait for. */
  dependencyCandidates: Array<{ id: string; title: string }>;
  origin: ModalOrigin;
}

/**
 * Queue a task: project (or, with none yet, the name of one to create), title, description,
 * priority, the tasks it waits for, and whether it needs approval.
 */
export function newTaskModal(input: NewTaskModalInput): View {
  const blocks: KnownBlock[] = [];
  if (input.projects.length === 0) {
    blocks.push(
      {
        type: 'section',
        text: { type: 'mrkdwn', text: ':seedling: *No projects yet.* Name one and it is created together with this task.' },
      },
      textInput('new_project', 'New project name', { placeholder: 'e.g. Website', max: 80 }),
    );
  } else {
    blocks.push(projectSelect(input.projects, input.selectedProject));
  }
  blocks.push(
    textInput('title', 'Title', { max: 200, placeholder: 'e.g. Fix the login redirect' }),
    textInput('description', 'What should the agent do?', {
      multiline: true,
      hint: 'Agents see only this: say what, where, and how to tell it is done.',
    }),
    {
      type: 'input',
      block_id: 'priority',
      optional: true,
      label: plainText('Priority'),
      hint: plainText('Lower numbers run first; 100 when left empty.'),
      element: { type: 'number_input', action_id: 'value', is_decimal_allowed: false, min_value: '0', placeholder: plainText('100') },
    },
  );
  if (input.dependencyCandidates.length > 0) {
    blocks.push({
      type: 'input',
      block_id: 'depends_on',
      optional: true,
      label: plainText('Depends on'),
      hint: plainText('This task waits until these are completed.'),
      element: {
        type: 'multi_static_select',
        action_id: 'value',
        placeholder: plainText('Tasks to wait for'),
        options: input.dependencyCandidates.slice(0, 100).map((t) => option(`${t.title} (${t.id})`, t.id)),
      },
    });
  } else {
    blocks.push(
      textInput('depends_on', 'Depends on', { optional: true, hint: 'Task ids this task waits for, separated by spaces or commas.' }),
    );
  }
  blocks.push({
    type: 'input',
    block_id: 'approval',
    optional: true,
    label: plainText('Review'),
    element: {
      type: 'checkboxes',
      action_id: 'value',
      options: [option('Open a pull request and wait for approval', 'requires_approval')],
    },
  });
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACKS.newTask,
    private_metadata: encodeOrigin(input.origin),
    title: plainText('New task'),
    submit: plainText('Queue it'),
    close: plainText('Cancel'),
    blocks,
  };
}

export function newProjectModal(origin: ModalOrigin): View {
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACKS.newProject,
    private_metadata: encodeOrigin(origin),
    title: plainText('New project'),
    submit: plainText('Create'),
    close: plainText('Cancel'),
    blocks: [
      textInput('name', 'Name', { max: 80, placeholder: 'e.g. Website', hint: 'The id is the name in lowercase with hyphens.' }),
      {
        type: 'input',
        block_id: 'channel',
        optional: true,
        label: plainText('Channel'),
        element: { type: 'checkboxes', action_id: 'value', options: [option('Create #aq-<project> for its updates', 'create_channel')] },
      },
    ],
  };
}

export function addRepoModal(projects: Array<{ id: string; name: string }>, selectedProject: string | null, origin: ModalOrigin): View {
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACKS.addRepo,
    private_metadata: encodeOrigin(origin),
    title: plainText('Add a repository'),
    submit: plainText('Add'),
    close: plainText('Cancel'),
    blocks: [
      projectSelect(projects, selectedProject),
      {
        type: 'input',
        block_id: 'source',
        label: plainText('Where from'),
        element: {
          type: 'radio_buttons',
          action_id: 'value',
          initial_option: option('Clone from a URL', 'clone'),
          options: [
            option('Clone from a URL', 'clone'),
            option('Link a folder on this machine', 'link'),
            option('Start an empty repository', 'init'),
          ],
        },
      },
      textInput('url', 'URL', { optional: true, placeholder: 'https://github.com/you/repo.git', hint: 'For a clone.' }),
      textInput('path', 'Folder', { optional: true, placeholder: '/home/you/code/repo', hint: 'For a link.' }),
      textInput('name', 'Name', { optional: true, hint: 'Taken from the URL or folder when empty.', max: 80 }),
    ],
  };
}

/** Request changes on a task awaiting approval: the text becomes a follow-up run on its branch. */
export function requestChangesModal(taskId: string, title: string, origin: ModalOrigin): View {
  return {
    type: 'modal',
    callback_id: MODAL_CALLBACKS.requestChanges,
    private_metadata: JSON.stringify({ ...origin, task_id: taskId }),
    title: plainText('Request changes'),
    submit: plainText('Send to the agent'),
    close: plainText('Cancel'),
    blocks: [
      { type: 'section', text: plainText(title.length > 2900 ? `${title.slice(0, 2899)}…` : title || taskId) },
      textInput('changes', 'What should change?', {
        multiline: true,
        max: 3000,
        hint: 'The agent continues its session on the same branch; the pull request is updated, not replaced.',
      }),
    ],
  };
}

/** The task a Request changes modal is about. */
export function requestedTask(metadata: string | undefined): string | null {
  try {
    const parsed = JSON.parse(metadata || '{}') as { task_id?: unknown };
    return typeof parsed.task_id === 'string' ? parsed.task_id : null;
  } catch {
    return null;
  }
}
