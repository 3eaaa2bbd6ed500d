import { getProjectForChannel } from '../../commands/channels';
import { listProjects } from '../../commands/projects';
import { listTasks } from '../../commands/tasks';
import type { KnownBlock } from '@slack/types';
import { clip, fallbackOf, LIMITS } from '../blocks/common';
import { bold, packRich, txt } from '../blocks/text';
import { type Execute, failed, run } from '../home-data';
import { settleAll } from '../../util/settle-all';

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;

export interface SuggestedPrompt {
  title: string;
  message: string;
}

export interface SuggestedPrompts {
  title: string;
  prompts: SuggestedPrompt[];
}

const NEEDS = [
  { status: 'AWAITING_APPROVAL', title: (t: string) => `Review “${t}”`, ask: 'waits for my approval: what would approving it merge?' },
  { status: 'FAILED', title: (t: string) => `Why did “${t}” fail?`, ask: 'failed: why, and what should I do about it?' },
  { status: 'BLOCKED', title: (t: string) => `Unblock “${t}”`, ask: 'is blocked: why, and how do I get it going again?' },
] as const;

/**
 * The assistant panel's suggested prompts, from the data: the tasks that need a person first
 * (awaiting approval, failed, blocked), then the project of the channel the person is looking
 * at (or their first project), then a question about everything. Read through commands.
 */
export async function suggestedPrompts(execute: Execute, contextChannelId?: string): Promise<SuggestedPrompts> {
  const [projects, linked, ...needs] = await settleAll([
    run(execute, listProjects, {}),
    contextChannelId ? run(execute, getProjectForChannel, { channel_id: contextChannelId }) : Promise.resolve(null),
    ...NEEDS.map((n) => run(execute, listTasks, { status: n.status })),
  ]);
  const prompts: SuggestedPrompt[] = [];
  NEEDS.forEach((need, i) => {
    const list = needs[i];
    if (failed(list)) return;
    for (const task of list.tasks.slice(0, 2)) {
      prompts.push({
        title: clip(need.title(clip(task.title, 40)), 75),
        message: `Task ${task.id} (${clip(task.title, 200)}) ${need.ask}`,
      });
    }
  });
  const attention = prompts.length > 0;
  const projectList = failed(projects) ? [] : projects.projects;
  const here = linked && !failed(linked) && typeof linked.project_id === 'string' ? linked.project_id : null;
  const project = projectList.find((p) => p.id === here) ?? projectList[0];
  const general: SuggestedPrompt[] = project
    ? [
        {
          title: clip(`What is going on in ${project.name}?`, 75),
          message: `What is running, queued and waiting for people in project ${project.id}?`,
        },
        { title: 'What needs me?', message: 'What needs a person right now, across all projects?' },
      ]
    : [{ title: 'Start a project', message: 'Help me create my first project and queue a task for it.' }];
  // Keep room for the general questions when many tasks need people.
  const kept = [...prompts.slice(0, MAX_PROMPTS - general.length), ...general].slice(0, MAX_PROMPTS);
  return { title: attention ? 'These need you:' : 'Try asking:', prompts: kept };
}

/** The same suggestions as a message, for a panel that takes no suggested prompts: literal text. */
export function promptsMessage(suggestions: SuggestedPrompts): { text: string; blocks: KnownBlock[] } {
  const lines = [[bold(suggestions.title)], ...suggestions.prompts.map((p) => [txt('• '), bold(p.title), txt(` — ${p.message}`)])];
  return { text: fallbackOf(suggestions.prompts.map((p) => p.title).join(' · ')), blocks: packRich(lines, LIMITS.richText) };
}
