import type { ProjectRecord } from '../db/repositories/projects';
import type { TaskRecord } from '../db/repositories/tasks';
import { cutWhole } from '../util/whole-characters';

/** Upstream summaries are cut to this many characters each. */
export const UPSTREAM_SUMMARY_LIMIT = 2000;

export interface UpstreamWork {
  id: string;
  title: string;
  summary: string | null;
}

export interface PromptInput {
  task: Pick<TaskRecord, 'id' | 'title' | 'description' | 'isPlanSubtask' | 'planDepth'>;
  project: Pick<ProjectRecord, 'id' | 'name'>;
  workspacePath: string;
  branch: string | null;
  defaultBranch: string | null;
  upstream: UpstreamWork[];
  /** Whether plans this task writes become subtasks (root tasks under the depth limit). */
  mayPlan: boolean;
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${cutWhole(text, limit)}\n…(truncated)` : text;
}

const EXECUTION_RULES = [
  '## Important: Execution Rules',
  '- You are running autonomously: there is NO interactive user. Do not ask questions and do not wait for answers; make reasonable decisions and note them in your final message.',
  '- Do not use plan mode.',
  '- Work only inside the workspace directory above.',
  '- Commit your work with `git add` and `git commit` as you go, with clear messages.',
  '- Do NOT push, and do not switch or merge branches: the system pushes, merges or opens the pull request after you finish.',
  '- End with a short summary of what you did and anything left undone.',
].join('\n');

const PLAN_RULES = [
  '## Writing Implementation Plans',
  '- Write a plan only when the task asks for one. Otherwise implement the task directly.',
  '- Put the plan in exactly `.agent/plan.md` in the workspace.',
  '- Name each phase `## Phase N: <title>`, with the work for that phase below it. Each phase becomes a separate task for another agent, run in order on this branch, so make every phase self-contained.',
  '- Put background and context before the first phase.',
  '- If you carry the plan out yourself, delete `.agent/plan.md` (or start it with `---\\nauto_tasks: false\\n---`): any plan left behind becomes new tasks.',
].join('\n');

const SUBTASK_RULES = [
  '## This Is One Step of a Plan',
  '- Implement this step DIRECTLY. Do not write a plan file and do not split the work further.',
  '- Earlier steps of the plan are already committed on this branch.',
].join('\n');

/** The prompt an agent gets: context, rules, upstream work, then the task itself. */
export function buildAgentPrompt(input: PromptInput): string {
  const parts: string[] = [];
  parts.push(
    [
      '## System Context',
      `- Workspace directory: ${input.workspacePath}`,
      `- Project: ${input.project.name} (id: ${input.project.id})`,
      `- Task id: ${input.task.id}`,
      ...(input.branch ? [`- Git branch (already checked out): ${input.branch}`] : []),
      ...(input.defaultBranch ? [`- Default branch: ${input.defaultBranch}`] : []),
    ].join('\n'),
  );
  parts.push(EXECUTION_RULES);
  if (input.task.isPlanSubtask) parts.push(SUBTASK_RULES);
  else if (input.mayPlan) parts.push(PLAN_RULES);
  const done = input.upstream.filter((u) => u.summary?.trim());
  if (done.length > 0) {
    parts.push(
      [
        '## Completed Upstream Work',
        ...done.map((u) => `### ${u.title} (${u.id})\n${cut(u.summary!.trim(), UPSTREAM_SUMMARY_LIMIT)}`),
      ].join('\n\n'),
    );
  }
  parts.push(`## Task: ${input.task.title}\n\n${input.task.description}`);
  return parts.join('\n\n');
}
