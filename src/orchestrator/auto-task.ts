import { mkdir, realpath, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config';
import type { ChatProvider } from '../model/provider';
import type { Database } from '../db/database';
import type { TaskRecord } from '../db/repositories/tasks';
import { parsePlanWithLlm } from '../plan/llm-parser';
import { secretRedactor } from '../agents/secret-redaction';
import {
  DEFAULT_PLAN_FILE_PATTERNS,
  buildTaskDescription,
  extractPlanContext,
  findPlanFile,
  parsePlan,
  PLAN_FILE_MAX_BYTES,
  type ParsedPlan,
} from '../plan/parser';
import type { EventLog } from './events';
import { errorMessage } from '../util/error-message';
import { isWithin } from '../util/path-within';
import { openRegularFile } from '../util/regular-file';
import { shorten } from '../util/whole-characters';

export interface AutoTaskDeps {
  db: Database;
  events: EventLog;
  config: AppConfig;
  chatProvider?: ChatProvider | null;
  /** Commits the archived plan on the task's branch. */
  commitAll(workspace: string, message: string): Promise<unknown>;
  log: (message: string) => void;
}

export type AutoTaskOutcome =
  | { kind: 'created'; tasks: Array<{ id: string; title: string }>; archivedTo: string }
  | { kind: 'skipped'; reason: string; planFile: string }
  | { kind: 'none' };

/** Whether YAML frontmatter at the top of the plan says `auto_tasks: false`. */
export function optsOutOfAutoTasks(content: string): boolean {
  const front = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(content);
  return !!front && /^auto_tasks[ \t]*:[ \t]*["']?(false|no|off|0)["']?[ \t]*$/im.test(front[1]);
}

/**
 * Whether the regex parser fell through to its single-step fallback (the whole document as one
 * step): such a file is informational, not a plan of separate tasks.
 */
export function isSingleStepFallback(content: string, plan: ParsedPlan): boolean {
  if (plan.steps.length !== 1) return false;
  const text = content.replace(/\r\n/g, '\n');
  const withoutTitle = text.replace(/^#[ \t]+.+$/m, '');
  return plan.steps[0].description.trim() === withoutTitle.trim();
}

/**
 * Past this many characters (about 50,000 tokens) a plan goes to the rule-based parser only: the
 * model's reading would cost more than a plan is worth, and a few times longer would not fit one request.
 */
const LLM_PLAN_MAX_CHARS = 200_000;

/** The real path of `target`'s nearest part that exists (links resolved). */
async function realExistingAncestor(target: string): Promise<string> {
  for (let at = target; ; at = path.dirname(at)) {
    try {
      return await realpath(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(at) === at) throw err;
    }
  }
}

/** The plan file's text, or why it is not read: the agent made the file, and may have made it anything. */
async function readAgentPlan(file: string): Promise<string | { skip: string }> {
  const handle = await openRegularFile(file);
  if (!handle) return { skip: 'it is not a regular file.' };
  try {
    const size = (await handle.stat()).size;
    if (size > PLAN_FILE_MAX_BYTES) {
      return { skip: `it is ${(size / 1024 / 1024).toFixed(1)} MB, more than the ${PLAN_FILE_MAX_BYTES / 1024 / 1024} MB a plan may be.` };
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function parse(deps: AutoTaskDeps, content: string, sourceFile: string): Promise<{ plan: ParsedPlan; byLlm: boolean }> {
  const maxSteps = deps.config.autoTask.maxStepsPerPlan;
  if (deps.config.autoTask.useLlmParser && deps.chatProvider && content.length > LLM_PLAN_MAX_CHARS) {
    deps.log(`The plan in ${sourceFile} is longer than ${LLM_PLAN_MAX_CHARS} characters; using the regex parser, not the model.`);
  } else if (deps.config.autoTask.useLlmParser && deps.chatProvider) {
    try {
      return { plan: await parsePlanWithLlm(content, deps.chatProvider, { sourceFile, maxSteps }), byLlm: true };
    } catch (err) {
      deps.log(`LLM plan parser failed (${errorMessage(err)}); using the regex parser.`);
    }
  }
  return { plan: parsePlan(content, { sourceFile, maxSteps }), byLlm: false };
}

/**
 * After a successful run: turns a plan file the agent left in the workspace into a chain of
 * subtasks, archives the file (moved and committed, so it is never parsed twice) and reports
 * them. Files older than the run are stale and ignored.
 */
export async function createTasksFromPlan(
  deps: AutoTaskDeps,
  task: TaskRecord,
  workspace: string,
  runStartedAt: Date,
): Promise<AutoTaskOutcome> {
  const { autoTask } = deps.config;
  if (!autoTask.enabled || !task.autoTasks || task.planDepth >= autoTask.maxPlanDepth) return { kind: 'none' };
  const planFile = await findPlanFile(workspace, autoTask.planFilePatterns ?? DEFAULT_PLAN_FILE_PATTERNS);
  if (!planFile) return { kind: 'none' };
  const info = await stat(planFile);
  if (info.mtimeMs < runStartedAt.getTime() - 1000) return { kind: 'none' };

  const relative = path.relative(workspace, planFile);
  const skip = async (reason: string): Promise<AutoTaskOutcome> => {
    deps.log(`Plan ${relative} of task ${task.id} not turned into tasks: ${reason}`);
    await deps.events.emit('plan_skipped', {
      projectId: task.projectId,
      taskId: task.id,
      payload: { title: task.title, plan_file: relative, reason },
    });
    return { kind: 'skipped', reason, planFile };
  };

  // The agent made the workspace's folders, and may have made one a link that leads out of it:
  // neither the plan read nor its archive may be outside (another project's files, the app's).
  const archived = path.join(workspace, '.agent', 'plans', `${task.id}-plan.md`);
  const realWorkspace = await realpath(workspace);
  if (!isWithin(await realpath(planFile), realWorkspace) || !isWithin(await realExistingAncestor(archived), realWorkspace)) {
    return skip('a link in its path leads outside the workspace.');
  }
  const text = await readAgentPlan(planFile);
  if (typeof text !== 'string') return skip(text.skip);
  // The plan is the agent's text: its steps become tasks that are stored and posted.
  const content = secretRedactor(deps.config)(text);
  if (optsOutOfAutoTasks(content)) return skip('its frontmatter says auto_tasks: false.');
  const { plan, byLlm } = await parse(deps, content, planFile);
  if (plan.steps.length === 0) return skip('it has no actionable steps.');
  if (!byLlm && isSingleStepFallback(content, plan)) {
    return skip('it has no phases or numbered steps, so it reads as a document rather than a plan.');
  }

  await mkdir(path.dirname(archived), { recursive: true });
  await rename(planFile, archived);
  const archivedRelative = path.relative(workspace, archived);
  try {
    await deps.commitAll(workspace, `plan: archive ${relative} as ${archivedRelative}\n\nTask-Id: ${task.id}`);
  } catch (err) {
    deps.log(`Could not commit the archived plan of ${task.id}: ${errorMessage(err)}`);
  }

  const context = extractPlanContext(content);
  const created = await deps.db.planChains.create({
    parent: {
      id: task.id,
      projectId: task.projectId,
      requiresApproval: task.requiresApproval,
      planDepth: task.planDepth,
      workspaceId: task.workspaceId,
      branchName: task.branchName,
      maxRetries: task.maxRetries,
    },
    planSource: archivedRelative,
    children: plan.steps.map((step) => ({
      title: shorten(step.title, 200, '...'),
      description: buildTaskDescription(step, task, context),
      priority: task.priority + step.priorityHint,
    })),
  });
  await deps.events.emit('plan_tasks_created', {
    projectId: task.projectId,
    taskId: task.id,
    payload: { title: task.title, tasks: created, plan_file: archivedRelative },
  });
  return { kind: 'created', tasks: created, archivedTo: archived };
}
