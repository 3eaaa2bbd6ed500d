import type { KnownBlock } from '@slack/types';
import { context, emoji, section, statusWord } from './common';
import type { Result } from './result-types';
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
export function taskUnfurl(task: Result<'get_task'>, url: string): TaskUnfurl {
  const facts = [
    md`Task ${task.id}`,
    md`project ${task.project_id}`,
    task.assigned_agent ? md`agent ${task.assigned_agent}` : null,
    task.branch ? md`branch ${task.branch}` : null,
  ].filter((f) => f !== null);
  return {
    blocks: [
      richLines([[txt(`${emoji(task.status)} `), bold(task.title || task.id), txt(` · ${statusWord(task.status)}`)], [link(url)]]),
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
