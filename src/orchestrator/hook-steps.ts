import path from 'node:path';
import { GitRunner } from '../git/git-runner';
import { runShell } from '../util/run-shell';
import { commandEnvironment } from '../util/safe-env';
import { refused, type CommandPort } from './command-port';
import { renderHookPrompt, renderHookUrl, renderShellCommand, type StepResult } from './hook-template';
import { cutWhole } from '../util/whole-characters';

/** What a context step may use: the command layer (as the hook) and the project's folder. */
export interface StepEnvironment {
  projectId: string;
  workspacePath: string;
  commands: CommandPort;
  event: Record<string, unknown> | null;
  /** Results of the steps before this one, for `{{step_N}}` in step arguments. */
  previous: StepResult[];
}

export type HookStep = Record<string, unknown> & { type?: unknown };

const LIMITS = { shellStdout: 50_000, shellStderr: 10_000, httpBody: 50_000 };

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

/** A whole number as JSON or a template's text gives it ("5"), or null. */
function wholeNumber(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : null;
}

/** The start of a response's body as text, reading no more of it than that takes (a page may be endless). */
async function firstCharacters(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= limit) break;
  }
  return cutWhole(text, limit);
}

function seconds(value: unknown, fallback: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** The argument a step type fills with a renderer of its own as it uses it: a shell step's command, an http step's URL. */
const RENDERED_WHERE_USED = new Map<unknown, string>([
  ['shell', 'command'],
  ['http', 'url'],
]);

/** Fills `{{step_N}}` / `{{event.x}}` placeholders inside string arguments of a step (but `kept`, left as written). */
function resolveArgs(step: HookStep, env: StepEnvironment, kept?: string): HookStep {
  const out: HookStep = {};
  for (const [key, value] of Object.entries(step)) {
    out[key] = typeof value === 'string' && key !== kept ? renderHookPrompt(value, env.previous, env.event) : value;
  }
  return out;
}

export async function runHookStep(rawStep: HookStep, env: StepEnvironment): Promise<StepResult> {
  const step = resolveArgs(rawStep, env, RENDERED_WHERE_USED.get(rawStep.type));
  switch (step.type) {
    case 'shell':
      return runShellStep(step, env);
    case 'read_file': {
      const maxLines = step.max_lines === undefined ? 500 : wholeNumber(step.max_lines);
      if (maxLines === null) return { error: `read_file step: max_lines must be a whole number (got ${JSON.stringify(step.max_lines)}).` };
      // A relative path is the project's file, as a shell step's cwd is the project's folder.
      const result = await env.commands.readFile({ path: path.resolve(env.workspacePath, text(step.path)), max_lines: maxLines });
      return refused(result) ? { error: result.error } : { content: result.content, path: result.path };
    }
    case 'http': {
      // Placeholders in the path and query are encoded, so an event's text cannot steer the request (renderHookUrl).
      const url = renderHookUrl(text(step.url), env.previous, env.event);
      if (!/^https?:\/\//i.test(url)) return { error: `http step needs an http(s) URL (got ${JSON.stringify(url)}).` };
      const response = await fetch(url, { signal: AbortSignal.timeout(seconds(step.timeout, 30) * 1000) });
      return { status_code: response.status, body: await firstCharacters(response, LIMITS.httpBody) };
    }
    case 'git_diff': {
      const base = text(step.base_branch, 'main');
      if (!/^[\w./-]+$/.test(base) || base.startsWith('-')) return { error: `Invalid base_branch ${JSON.stringify(base)}.` };
      // Through the git runner, as every git call of the app: no prompts, no programs chosen by the workspace.
      const out = await new GitRunner(60_000).exec(env.workspacePath, ['diff', '--no-ext-diff', `${base}...HEAD`], {
        maxOutput: LIMITS.shellStdout,
      });
      return { diff: out.stdout, ...(out.cut && { cut: true }) };
    }
    case 'db_query': {
      const params = (typeof step.params === 'object' && step.params !== null ? step.params : {}) as Record<string, unknown>;
      return env.commands.namedQuery(text(step.query), resolveArgs(params as HookStep, env), env.projectId);
    }
    case 'create_task': {
      const priority = step.priority === undefined ? undefined : wholeNumber(step.priority);
      if (priority === null) return { error: `create_task step: priority must be a whole number (got ${JSON.stringify(step.priority)}).` };
      if (step.project_id !== undefined && typeof step.project_id !== 'string') {
        return { error: `create_task step: project_id must be a project's id (got ${JSON.stringify(step.project_id)}).` };
      }
      const result = await env.commands.createTask({
        project_id: text(step.project_id, env.projectId),
        title: text(step.title_template ?? step.title),
        description: text(step.description_template ?? step.description),
        ...(priority !== undefined && { priority }),
      });
      return refused(result) ? { error: result.error } : { content: `Created task ${result.created}`, task_id: result.created };
    }
    default:
      return {
        error: `Unknown context step type ${JSON.stringify(step.type)}. Use shell, read_file, http, git_diff, db_query or create_task.`,
      };
  }
}

/**
 * Whether a step's result asks to skip the model call, with the reason. Flags: skip_llm_if_exit_zero,
 * skip_llm_if_empty (stdout and content blank), skip_llm_if_status_ok (2xx).
 */
export function shortCircuitReason(step: HookStep, result: StepResult): string | null {
  if (step.skip_llm_if_exit_zero && result.exit_code === 0) return 'exit code 0';
  if (step.skip_llm_if_empty) {
    const blank = `${text(result.stdout)}${text(result.content)}`.trim() === '';
    if (blank && !result.error) return 'output empty';
  }
  if (step.skip_llm_if_status_ok && typeof result.status_code === 'number' && result.status_code >= 200 && result.status_code < 300) {
    return `HTTP ${result.status_code}`;
  }
  return null;
}

/**
 * A `shell` step: its command in the project's folder, without the app's secrets. The command's
 * placeholders become variables of its environment, not text of it (renderShellCommand).
 */
export async function runShellStep(
  step: HookStep,
  env: Pick<StepEnvironment, 'workspacePath' | 'event' | 'previous'>,
): Promise<StepResult> {
  const { command, values } = renderShellCommand(text(step.command), env.previous, env.event);
  const run = await runShell(command, {
    cwd: env.workspacePath,
    timeoutMs: seconds(step.timeout, 60) * 1000,
    maxStdout: LIMITS.shellStdout,
    maxStderr: LIMITS.shellStderr,
    env: { ...commandEnvironment(process.env), ...values },
  });
  return { stdout: run.stdout, stderr: run.stderr, exit_code: run.exitCode, ...(run.timedOut && { timed_out: true }) };
}
