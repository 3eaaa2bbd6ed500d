import type { KnownBlock } from '@slack/types';
import { context, emoji, section, statusWord } from './common';
import { bold, link, md, mdJoin, richLines, txt } from './text';

/** What a classic unfurl attaches to a pasted task link: blocks under the message. */
export interface TaskUnfurl {
  blocks: KnownBlock[];
}

/**
 * A pasted task link as a classic unfurl, where the workspace takes no Work Object: the task's
 * title and status, its link, and a line with its id, project, agent and branch. The title is
 * literal rich text and the rest is escaped: all of it is the task's own text.
 */
export function taskUnfurl(task: Record<string, unknown>, url: string): TaskUnfurl {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const status = String(task.status ?? '');
  const facts = [
    md`Task ${String(task.id)}`,
    str(task.project_id) && md`project ${String(task.project_id)}`,
    str(task.assigned_agent) && md`agent ${String(task.assigned_agent)}`,
    str(task.branch) && md`branch ${String(task.branch)}`,
  ].filter((f) => f !== null);
  return {
    blocks: [
      richLines([[txt(`${emoji(status)} `), bold(String(task.title ?? task.id)), txt(` · ${statusWord(status)}`)], [link(url)]]),
      context(mdJoin(facts, ' · ').text),
    ],
  };
}

/** A pasted link to a task that is not there (deleted, or never one of ours): said plainly, with where to look. */
export function taskGoneUnfurl(taskId: string): TaskUnfurl {
  return {
    blocks: [
      section(md`There is no task ${taskId} any more: it may have been deleted. \`/aq list_tasks\` shows the tasks there are.`.text),
    ],
  };
}
