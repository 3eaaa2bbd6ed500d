import { GitRunner } from '../git/git-runner';
import { runShell } from '../util/run-shell';
import { withoutSecrets } from '../util/safe-env';
import { renderHookPrompt, renderHookUrl, renderShellCommand, type StepResult } from './hook-template';

/** What a context step may use: the command layer (as the hook) and the project's folder. */
export interface StepEnvironment {
  projectId: string;
  workspacePath: string;
  execute(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  event: Record<string, unknown> | null;
  /** Results of the steps before this one, for `{{step_N}}` in step arguments. */
  previous: StepResult[];
}

export type HookStep = Record<string, unknown> & { type?: unknown };

const LIMITS = { shellStdout: 50_000, shellStderr: 10_000, httpBody: 50_000 };

/** Named read-only queries a `db_query` step may run, each mapped onto a command. */
const NAMED_QUERIES: Record<string, (params: Record<string, unknown>, env: StepEnvironment) => [string, Record<string, unknown>]> = {
  recent_events: (p) => ['get_recent_events', { limit: p.limit ?? 20 }],
  failed_tasks: (p, env) => ['list_tasks', { project_id: p.project_id ?? env.projectId, status: 'FAILED' }],
  blocked_tasks: (p, env) => ['list_tasks', { project_id: p.project_id ?? env.projectId, status: 'BLOCKED' }],
  project_tasks_by_status: (p, env) => ['list_tasks', { project_id: p.project_id ?? env.projectId, status: p.status }],
  task_detail: (p) => ['get_task', { task_id: p.task_id }],
  task_result: (p) => ['get_task_result', { task_id: p.task_id }],
  hook_runs: (p) => ['list_hook_runs', { hook_id: p.hook_id, limit: p.limit ?? 10 }],
  chain_health: (p, env) => ['get_chain_health', { project_id: p.project_id ?? env.projectId }],
  status: () => ['get_status', {}],
};

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
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
    case 'shell': {
      // The command's placeholders become variables of its environment, not text of it (renderShellCommand).
      const { command, values } = renderShellCommand(text(step.command), env.previous, env.event);
      const run = await runShell(command, {
        cwd: env.workspacePath,
        timeoutMs: seconds(step.timeout, 60) * 1000,
        maxStdout: LIMITS.shellStdout,
        maxStderr: LIMITS.shellStderr,
        env: { ...withoutSecrets(process.env), ...values },
      });
      return { stdout: run.stdout, stderr: run.stderr, exit_code: run.exitCode, ...(run.timedOut && { timed_out: true }) };
    }
    case 'read_file': {
      const result = await env.execute('read_file', { path: text(step.path), max_lines: step.max_lines ?? 500 });
      return result.error ? { error: result.error } : { content: result.content, path: result.path };
    }
    case 'http': {
      // Placeholders in the path and query are encoded, so an event's text cannot steer the request (renderHookUrl).
      const url = renderHookUrl(text(step.url), env.previous, env.event);
      if (!/^https?:\/\//i.test(url)) return { error: `http step needs an http(s) URL (got ${JSON.stringify(url)}).` };
      const response = await fetch(url, { signal: AbortSignal.timeout(seconds(step.timeout, 30) * 1000) });
      const body = (await response.text()).slice(0, LIMITS.httpBody);
      return { status_code: response.status, body };
    }
    case 'git_diff': {
      const base = text(step.base_branch, 'main');
      if (!/^[\w./-]+$/.test(base) || base.startsWith('-')) return { error: `Invalid base_branch ${JSON.stringify(base)}.` };
      // Through the git runner, as every git call of the app: no prompts, no programs chosen by the workspace.
      const stdout = await new GitRunner(60_000).run(env.workspacePath, ['diff', '--no-ext-diff', `${base}...HEAD`]);
      return { diff: stdout.slice(0, LIMITS.shellStdout) };
    }
    case 'db_query': {
      const name = text(step.query);
      const query = NAMED_QUERIES[name];
      if (!query) {
        return { error: `Unknown query ${JSON.stringify(name)}. Known queries: ${Object.keys(NAMED_QUERIES).join(', ')}.` };
      }
      const params = (typeof step.params === 'object' && step.params !== null ? step.params : {}) as Record<string, unknown>;
      const [command, args] = query(resolveArgs(params as HookStep, env), env);
      return { content: JSON.stringify(await env.execute(command, args)) };
    }
    case 'create_task': {
      const result = await env.execute('create_task', {
        project_id: step.project_id ?? env.projectId,
        title: text(step.title_template ?? step.title),
        description: text(step.description_template ?? step.description),
        ...(step.priority !== undefined && { priority: step.priority }),
      });
      return result.error ? { error: result.error } : { content: `Created task ${String(result.created)}`, task_id: result.created };
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
