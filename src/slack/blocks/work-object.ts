import type { EntityMetadata } from '@slack/types';
import type { EntityPresentDetailsArguments } from '@slack/web-api';
import { clip, esc, statusWord } from './common';
import type { Result } from './result-types';

/**
 * A task as a Slack Work Object (`slack#/entities/task`): what its messages carry in
 * `metadata.entities` and what the details pane (`entity.presentDetails`) shows. Slack reads
 * these strings as it reads any text it is sent, so `&`, `<` and `>` are escaped; it documents no
 * length caps for entity fields that we found, so ours keep a card short.
 */
export const TASK_ENTITY_TYPE = 'slack#/entities/task';
/** Our `external_ref.type`: what `entity_details_requested` sends back with the task id. */
export const TASK_REF_TYPE = 'aq_task';

export const WORK_OBJECT_LIMITS = { title: 200, field: 200, description: 1000, url: 2000 } as const;

/** What a task's Work Object says, read from get_task. */
export interface TaskEntityFacts {
  id: string;
  title: string;
  status: string;
  projectId: string;
  agent: string | null;
  /** Lower runs first (create_task's `priority`). */
  priority: number | null;
  description?: string | null;
  branch?: string | null;
  prUrl?: string | null;
  /** The URL that names the task (taskEntityUrl, or the one Slack already knows it by). */
  url: string;
}

/** One line of text we did not write, escaped and cut (never in the middle of an `&amp;`). */
const text = (value: unknown, max: number): string =>
  clip(esc(String(value ?? '').replace(/\p{Cc}+/gu, ' ')), max).replace(/&[a-z]{0,3}…$/, '…');

/**
 * The URL that names a task: its task link where the app has a public address (AQ_PUBLIC_URL),
 * else Slack's own redirect to the channel of its thread (a link that opens in any workspace)
 * with the task id, so no two tasks share one.
 */
export function taskEntityUrl(taskId: string, channelId: string | null, publicUrl?: string | null): string {
  if (publicUrl) return taskLink(publicUrl, taskId);
  const params = new URLSearchParams({ ...(channelId && { channel: channelId }), aq_task: taskId });
  return clip(`https://slack.com/app_redirect?${params.toString()}`, WORK_OBJECT_LIMITS.url);
}

/** A task's link, `<AQ_PUBLIC_URL>/tasks/<id>`: pasted anywhere in Slack, it unfurls as the task. */
export function taskLink(publicUrl: string, taskId: string): string {
  return clip(`${publicUrl.replace(/\/+$/, '')}/tasks/${encodeURIComponent(taskId)}`, WORK_OBJECT_LIMITS.url);
}

/** The task id a pasted link names when it is one of our task links (same host and path prefix), else null. */
export function taskIdOfLink(url: string, publicUrl: string): string | null {
  let link: URL;
  let base: URL;
  try {
    link = new URL(url);
    base = new URL(publicUrl);
  } catch {
    return null;
  }
  if (link.host.toLowerCase() !== base.host.toLowerCase()) return null;
  const prefix = `${base.pathname.replace(/\/+$/, '')}/tasks/`;
  if (!link.pathname.startsWith(prefix)) return null;
  const id = link.pathname.slice(prefix.length).replace(/\/+$/, '');
  if (!id || id.includes('/')) return null;
  try {
    return decodeURIComponent(id);
  } catch {
    return null;
  }
}

/** The task id an `entity_details_requested` event names: its external_ref, else the `aq_task` of its URL. */
export function taskIdOfEntity(event: { external_ref?: { id: string; type?: string }; entity_url?: string }): string | null {
  if (event.external_ref?.id) return event.external_ref.id;
  try {
    return new URL(String(event.entity_url)).searchParams.get('aq_task');
  } catch {
    return null;
  }
}

/** The Work Object of a task. */
export function taskEntity(f: TaskEntityFacts): EntityMetadata {
  const field = (value: unknown) => ({ value: text(value, WORK_OBJECT_LIMITS.field), type: 'string' });
  const fields: NonNullable<EntityMetadata['entity_payload']['fields']> = {
    status: field(statusWord(f.status)),
    ...(f.agent && { assignee: { type: 'string', value: text(f.agent, WORK_OBJECT_LIMITS.field) } }),
    ...(f.priority !== null && { priority: field(String(f.priority)) }),
    ...(f.description?.trim() && {
      description: { value: text(f.description, WORK_OBJECT_LIMITS.description), type: 'string', long: true },
    }),
  };
  const custom = [
    { label: 'Project', key: 'project', type: 'string', value: text(f.projectId, WORK_OBJECT_LIMITS.field) },
    ...(f.branch ? [{ label: 'Branch', key: 'branch', type: 'string', value: text(f.branch, WORK_OBJECT_LIMITS.field) }] : []),
    ...(f.prUrl && /^https?:\/\//i.test(f.prUrl)
      ? [{ label: 'Pull request', key: 'pull_request', type: 'slack#/types/link', value: clip(f.prUrl, WORK_OBJECT_LIMITS.url) }]
      : []),
  ];
  return {
    entity_type: TASK_ENTITY_TYPE,
    url: clip(f.url, WORK_OBJECT_LIMITS.url),
    external_ref: { id: f.id, type: TASK_REF_TYPE },
    entity_payload: {
      attributes: {
        title: { text: text(f.title, WORK_OBJECT_LIMITS.title) || text(f.id, WORK_OBJECT_LIMITS.title) },
        display_type: 'Task',
        display_id: text(f.id, WORK_OBJECT_LIMITS.field),
        product_name: 'Agent Queue',
      },
      fields,
      custom_fields: custom,
      display_order: ['status', 'assignee', 'priority', 'project', 'branch', 'pull_request', 'description'],
    },
  };
}

/** The Work Object of a task as get_task shows it. */
export function taskEntityOf(task: Result<'get_task'>, url: string): EntityMetadata {
  return taskEntity({
    id: task.id,
    title: task.title || task.id,
    status: task.status,
    projectId: task.project_id,
    agent: task.assigned_agent || null,
    priority: task.priority,
    description: task.description || null,
    branch: task.branch || null,
    prUrl: task.pr_url || null,
    url,
  });
}

/** What the details pane shows for a task id that names no task (deleted, or never one of ours). */
export function taskNotFound(taskId: string): NonNullable<EntityPresentDetailsArguments['error']> {
  return {
    status: 'custom',
    custom_title: 'Task not found',
    custom_message: `There is no task ${text(taskId, WORK_OBJECT_LIMITS.field)} any more: it may have been deleted. /aq list_tasks shows the tasks there are.`,
  };
}
