import { rm } from 'node:fs/promises';
import os from 'node:os';
import type { Options, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { isRateLimitMessage, parseResetTime } from './rate-limits';
import { DEFAULT_ANTHROPIC_URL, observeLimits } from './limit-observer';
import { commandEnvironment } from '../util/safe-env';
import {
  claudeConfigSecrets,
  missingSandboxPrograms,
  pathGuard,
  placesOf,
  sandboxSettings,
  WRITE_TOOLS,
  type ConfinementPolicy,
  type Refusal,
} from './confinement';
import { progressLines } from './progress-lines';
import { makeRunTempDir } from './run-temp-dir';
import { StreamingPrompt } from './streaming-input';
import { DEFAULT_TOOL_POLICY } from './agent-requests';
import { permissionCallback } from './permission-callback';
import { nothingChangedFailure, workspaceHead } from './workspace-changes';
import { ZERO_USAGE, type AgentAdapter, type AgentRunOutcome, type AgentRunRequest, type AgentUsage } from './adapter';
import { errorMessage } from '../util/error-message';

export interface ClaudeCodeOptions {
  apiKey?: string;
  baseUrl?: string;
  /** Empty lets the CLI choose its default model. */
  model?: string;
  /** `CLAUDE_CODE_MAX_RETRIES`: the CLI's own API retries (its default of 10 takes minutes). */
  maxRetries?: number;
  maxTurns?: number;
  /** Extra environment over the one built here (tests: HOME, CLAUDE_CONFIG_DIR). */
  env?: Record<string, string | undefined>;
  pathToClaudeCodeExecutable?: string;
  /** Where agents may go besides their workspace, and whether they may run unsandboxed. */
  confinement?: ConfinementPolicy;
  /** Files and folders sandboxed commands must not read (the app's own: appPrivatePaths). */
  hiddenPaths?: string[];
  /**
   * Where each run's temporary folder is made, instead of the CLI's /tmp/claude-<uid> that every
   * agent of the machine would share: a folder hidden from every agent but for its own
   * (agentTempDir, among the app's own files).
   */
  tempRoot: string;
  log?: (message: string) => void;
  /** How often a run looks for messages sent to it (default 500 ms). */
  messagePollMs?: number;
  /** After a result, how long a just-given message may take to start its turn (default 5 s). */
  messageGraceMs?: number;
}

/** With nobody to ask, AskUserQuestion is not offered (the model would only get a refusal). */
export const CLAUDE_DISALLOWED_WITHOUT_PEOPLE = ['AskUserQuestion'];

/** What the CLI itself needs to reach its model; its subprocesses get none of it (see below). */
const MODEL_ACCESS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'] as const;

/**
 * The CLI's environment: ours without secrets (the agent's output is posted to Slack) nor the
 * app's own runtime settings (commandEnvironment), plus the Anthropic settings it needs, no
 * telemetry, bounded retries. CLAUDE_CODE_SUBPROCESS_ENV_SCRUB makes the CLI strip its own
 * credentials from what its Bash commands, hooks and MCP servers see: the CLI needs the key, the
 * agent's shell must not print it.
 */
export function buildClaudeEnv(
  options: Pick<ClaudeCodeOptions, 'apiKey' | 'baseUrl' | 'maxRetries' | 'env'>,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = commandEnvironment(base);
  for (const name of MODEL_ACCESS) {
    if (base[name]) env[name] = base[name];
  }
  env.CLAUDE_CODE_SUBPROCESS_ENV_SCRUB = '1';
  // A daemon started from inside Claude Code must not look like a nested session.
  delete env.CLAUDECODE;
  delete env.CLAUDE_CODE_ENTRYPOINT;
  if (options.apiKey) env.ANTHROPIC_API_KEY = options.apiKey;
  if (options.baseUrl) env.ANTHROPIC_BASE_URL = options.baseUrl;
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  env.DISABLE_TELEMETRY = '1';
  env.DISABLE_AUTOUPDATER = '1';
  env.DISABLE_ERROR_REPORTING = '1';
  // The CLI's own git reads must not hold the workspace's index.lock while the run's commit needs it.
  env.GIT_OPTIONAL_LOCKS = '0';
  env.CLAUDE_CODE_MAX_RETRIES = String(options.maxRetries ?? 2);
  return { ...env, ...(options.env ?? {}) };
}

function usageOf(result: SDKResultMessage | null): AgentUsage {
  const u = result?.usage as Partial<Record<string, number>> | undefined;
  if (!u) return { ...ZERO_USAGE };
  return {
    inputTokens: Number(u.input_tokens ?? 0),
    outputTokens: Number(u.output_tokens ?? 0),
    cacheReadTokens: Number(u.cache_read_input_tokens ?? 0),
    cacheCreationTokens: Number(u.cache_creation_input_tokens ?? 0),
  };
}

const failedBeforeStart: AgentRunOutcome = {
  status: 'failed',
  summary: '',
  errorMessage: null,
  usage: { ...ZERO_USAGE },
  costUsd: 0,
  sessionId: null,
  resetsAt: null,
};

/**
 * The sandbox under the project's policy: shell commands outside the policy are asked about,
 * sandboxed or not, and a `WebFetch(domain:…)` rule opens that host to sandboxed commands too
 * (the rule Claude Code itself suggests for a sandbox's network request).
 */
export function sandboxFor(base: NonNullable<Options['sandbox']>, rules: string[]): NonNullable<Options['sandbox']> {
  const hosts = rules.flatMap((rule) => /^WebFetch\(domain:([A-Za-z0-9*.-]+)\)$/.exec(rule)?.[1] ?? []);
  const listed = base.network?.allowedDomains ?? [];
  return {
    ...base,
    autoAllowBashIfSandboxed: false,
    network: { ...base.network, allowedDomains: [...new Set([...listed, ...hosts])] },
  };
}

/** Why a task cannot run when the shell sandbox is missing and the policy requires it. */
export function unsandboxedRefusal(missing: string[]): string {
  return `Agents run shell commands in a sandbox, and this machine lacks ${missing.join(' and ')}: install the Debian packages bubblewrap and socat (apt-get install bubblewrap socat), or set AQ_ALLOW_UNSANDBOXED=true to let agents run unconfined shell commands.`;
}

/** The agent's answer, followed by what it tried outside its workspace or in a git folder. */
function withRefusals(summary: string, refusals: Refusal[]): string {
  const lines = refusals.map((r) => `- ${r.tool}${r.path ? ` ${r.path}` : ''}`);
  const note = `Refused ${refusals.length} attempt${refusals.length === 1 ? '' : 's'} ${placesOf(refusals)}:\n${lines.join('\n')}`;
  return summary.trim() ? `${summary.trimEnd()}\n\n${note}` : note;
}

function usesHttpProxy(env: Record<string, string | undefined>): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'].some((name) => !!env[name]);
}

/**
 * The CLI offers Glob and Grep only when allowedTools names them; a rule with content keeps
 * them offered without shadowing the permission callback (which allows them for the policy).
 */
function searchToolsOffered(wholeTools: ReadonlySet<string>): string[] {
  return ['Glob', 'Grep'].filter((tool) => wholeTools.has(tool)).map((tool) => `${tool}(**)`);
}

/**
 * The policy's rules split for the SDK. Bare names (`Read`) go to the permission callback,
 * which allows them: in allowedTools they would approve the whole tool before the callback is
 * asked, and the SDK warns (CLAUDE_SDK_CAN_USE_TOOL_SHADOWED) on every run where a bare name
 * meets a callback. The path guard runs before either.
 */
export function toolRulesForSdk(rules: readonly string[]): { allowedTools: string[]; wholeTools: Set<string> } {
  const wholeTools = new Set(rules.filter((rule) => !rule.includes('(')));
  return { allowedTools: [...rules.filter((rule) => !wholeTools.has(rule)), ...searchToolsOffered(wholeTools)], wholeTools };
}

/** Whether a run failed because the session it was to resume is not in this machine's session store. */
function isMissingSession(errorMessage: string | null, sessionId: string): boolean {
  const message = errorMessage ?? '';
  return message.includes('No conversation found') && message.includes(sessionId);
}

/** Runs Claude Code through the Agent SDK's `query()` in the task's workspace, confined to it. */
export class ClaudeCodeAdapter implements AgentAdapter {
  readonly type = 'claude';

  constructor(private readonly options: ClaudeCodeOptions) {}

  async run(request: AgentRunRequest): Promise<AgentRunOutcome> {
    const outcome = await this.runOnce(request);
    // A session is kept under the HOME of the machine that ran it: a follow-up that another
    // worker picked up cannot resume it there, so it starts afresh with the whole task.
    if (request.resumeSessionId && outcome.status === 'failed' && isMissingSession(outcome.errorMessage, request.resumeSessionId)) {
      this.options.log?.(
        `[claude ${request.taskId}] session ${request.resumeSessionId} is not on this machine: starting a new one with the whole task`,
      );
      return this.runOnce({ ...request, resumeSessionId: null, prompt: request.freshPrompt ?? request.prompt });
    }
    return outcome;
  }

  private async runOnce(request: AgentRunRequest): Promise<AgentRunOutcome> {
    // Loaded on first use: the SDK is ESM-only and `aq` processes never need it.
    const { query } = await import('@anthropic-ai/claude-agent-sdk');
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (request.signal.aborted) abort();
    else request.signal.addEventListener('abort', abort, { once: true });

    const policy = this.options.confinement ?? {};
    const env = buildClaudeEnv(this.options);
    const missing = missingSandboxPrograms(env.PATH);
    if (missing.length > 0 && !policy.allowUnsandboxed) {
      return { ...failedBeforeStart, errorMessage: unsandboxedRefusal(missing) };
    }
    if (missing.length > 0) {
      // The CLI's scrubbing needs bubblewrap and refuses to start without it; an unconfined
      // shell (which the policy allowed) can read the app's .env anyway.
      delete env.CLAUDE_CODE_SUBPROCESS_ENV_SCRUB;
      this.options.log?.(`[claude ${request.taskId}] running without the sandbox: the agent's shell can see the Anthropic key.`);
    }
    const roots = [request.cwd, ...(policy.extraDirs ?? [])];
    const startHead = await workspaceHead(request.cwd);
    const refusals: Refusal[] = [];
    let writesAllowed = 0;
    // The project's policy is what runs unasked; the rest reaches the permission callback (the
    // path guard and the sandbox still apply to everything allowed).
    const requests = request.agentRequests;
    const rules = requests ? await requests.allowRules() : [...DEFAULT_TOOL_POLICY];
    const { allowedTools, wholeTools } = toolRulesForSdk(rules);
    // Behind an HTTP proxy the CLI must keep talking to it; reset times then come from the stream.
    const observer = usesHttpProxy(env) ? null : await observeLimits(env.ANTHROPIC_BASE_URL ?? DEFAULT_ANTHROPIC_URL);
    if (observer) env.ANTHROPIC_BASE_URL = observer.url;
    // Its own temporary folder, for the CLI and its shell, made last before the run so that nothing
    // between leaves it behind.
    const temp = await makeRunTempDir(this.options.tempRoot, 'claude-');
    // The CLI keeps its own files in CLAUDE_CODE_TMPDIR and gives its shell a folder in TMPDIR.
    Object.assign(env, { CLAUDE_CODE_TMPDIR: temp, TMPDIR: temp });
    // The file tools reach what the shell does: the task's roots and the run's temporary folder
    // (where a command's output written to $TMPDIR is read back).
    const guard = pathGuard(
      [...roots, temp],
      (refusal) => {
        refusals.push(refusal);
        request.onProgress?.(`Refused · ${refusal.tool}${refusal.path ? ` · ${refusal.path}` : ''} (${refusal.place})`);
      },
      (tool) => {
        if (WRITE_TOOLS.has(tool)) writesAllowed += 1;
      },
    );
    const options: Options = {
      cwd: request.cwd,
      env,
      hooks: { PreToolUse: [{ hooks: [guard], onFailure: 'block' }] },
      ...(missing.length === 0 && {
        sandbox: sandboxFor(
          sandboxSettings(
            env.HOME ?? os.homedir(),
            roots,
            policy,
            [...(this.options.hiddenPaths ?? []), ...claudeConfigSecrets(env.CLAUDE_CONFIG_DIR)],
            temp,
          ),
          rules,
        ),
      }),
      settingSources: [],
      permissionMode: 'acceptEdits',
      allowedTools,
      ...(!requests?.canAsk && { disallowedTools: CLAUDE_DISALLOWED_WITHOUT_PEOPLE }),
      canUseTool: permissionCallback(requests, controller.signal, (m) => this.options.log?.(`[claude ${request.taskId}] ${m}`), wholeTools),
      abortController: controller,
      ...(request.resumeSessionId && { resume: request.resumeSessionId }),
      ...(this.options.model && { model: this.options.model }),
      ...(this.options.maxTurns && { maxTurns: this.options.maxTurns }),
      ...(this.options.pathToClaudeCodeExecutable && { pathToClaudeCodeExecutable: this.options.pathToClaudeCodeExecutable }),
      stderr: (data: string) => this.options.log?.(`[claude ${request.taskId}] ${data.trimEnd()}`),
    };

    let result: SDKResultMessage | null = null;
    let thrown: string | null = null;
    let sessionId: string | null = null;
    let resetsAt: Date | null = null;
    let limitRejected = false;
    let lastRetryStatus: number | null = null;
    let assistantError: string | null = null;
    const prompt = new StreamingPrompt(
      request.prompt,
      request.inbox,
      this.options.messagePollMs ?? 500,
      this.options.messageGraceMs ?? 5000,
      (err) => this.options.log?.(`[claude ${request.taskId}] reading its messages failed: ${errorMessage(err)}`),
    );
    controller.signal.addEventListener('abort', () => prompt.end(), { once: true });
    try {
      for await (const message of query({ prompt, options })) {
        prompt.observe(message);
        if ('session_id' in message && message.session_id) sessionId = message.session_id;
        if (message.type === 'result') result = message;
        else if (message.type === 'rate_limit_event') {
          // Mostly an informational heartbeat ('allowed'); only 'rejected' stops work.
          const info = message.rate_limit_info;
          if (info.resetsAt) resetsAt = new Date(info.resetsAt * 1000);
          if (info.status === 'rejected') limitRejected = true;
        } else if (message.type === 'system' && message.subtype === 'api_retry') {
          lastRetryStatus = message.error_status;
        } else if (message.type === 'assistant') {
          if (message.error) assistantError = String(message.error);
          for (const line of progressLines(message, request.cwd)) request.onProgress?.(line);
        }
      }
    } catch (err) {
      // The SDK throws after yielding an error result; the result (kept above) says more.
      thrown = errorMessage(err);
    } finally {
      prompt.end();
      request.signal.removeEventListener('abort', abort);
      await observer?.close();
      await rm(temp, { recursive: true, force: true });
    }
    const outcome = this.outcome({
      result,
      thrown,
      sessionId,
      resetsAt: resetsAt && resetsAt.getTime() > Date.now() ? resetsAt : (observer?.resetsAt ?? null),
      limitRejected,
      lastRetryStatus,
      assistantError,
      aborted: controller.signal.aborted,
    });
    if (refusals.length === 0) return outcome;
    const reported = { ...outcome, summary: withRefusals(outcome.summary, refusals) };
    const failure = outcome.status === 'completed' ? await nothingChangedFailure(refusals, writesAllowed, request.cwd, startHead) : null;
    return failure ? { ...reported, status: 'failed', errorMessage: failure } : reported;
  }

  private outcome(s: {
    result: SDKResultMessage | null;
    thrown: string | null;
    sessionId: string | null;
    resetsAt: Date | null;
    limitRejected: boolean;
    lastRetryStatus: number | null;
    assistantError: string | null;
    aborted: boolean;
  }): AgentRunOutcome {
    const usage = usageOf(s.result);
    const base = { usage, costUsd: Number(s.result?.total_cost_usd ?? 0), sessionId: s.result?.session_id ?? s.sessionId };
    const text = s.result && 'result' in s.result && typeof s.result.result === 'string' ? s.result.result : '';
    if (s.aborted) {
      return { ...base, status: 'aborted', summary: text, errorMessage: 'Agent was stopped.', resetsAt: null };
    }
    if (s.result && !s.result.is_error && s.result.subtype === 'success') {
      if (!text.trim() && usage.inputTokens + usage.outputTokens === 0) {
        return {
          ...base,
          status: 'failed',
          summary: '',
          errorMessage: 'The agent produced no output and used no tokens (auth failure, rate limit or CLI crash).',
          resetsAt: null,
        };
      }
      return { ...base, status: 'completed', summary: text, errorMessage: null, resetsAt: null };
    }
    const errors = s.result && 'errors' in s.result && Array.isArray(s.result.errors) ? s.result.errors.join('; ') : '';
    // An API error ends the run with an error result whose subtype is still 'success': only its text says anything.
    const kind = s.result && s.result.subtype !== 'success' ? s.result.subtype : '';
    const message =
      [s.result ? [kind, text].filter(Boolean).join(': ') : '', errors, s.result ? '' : (s.thrown ?? '')].filter(Boolean).join(' — ') ||
      s.thrown ||
      'The agent ended without a result.';
    const limited =
      s.limitRejected ||
      s.lastRetryStatus === 429 ||
      s.assistantError === 'rate_limit' ||
      isRateLimitMessage(text) ||
      isRateLimitMessage(errors);
    if (limited) {
      const resetsAt = (s.resetsAt && s.resetsAt.getTime() > Date.now() ? s.resetsAt : null) ?? parseResetTime(`${text} ${errors}`);
      return { ...base, status: 'rate_limited', summary: text, errorMessage: message, resetsAt };
    }
    return { ...base, status: 'failed', summary: text, errorMessage: message, resetsAt: null };
  }
}
