import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { ClientConnection, PromptResponse, RequestPermissionRequest, SessionUpdate } from '@agentclientprotocol/sdk';
import { DEFAULT_TOOL_POLICY } from './agent-requests';
import { permissionJudge, REJECT } from './acp-permissions';
import { GuardedFiles } from './acp-files';
import type { AgentAdapter, AgentRunOutcome, AgentRunRequest, AgentUsage } from './adapter';
import { closedFolders, missingSandboxPrograms, realPathOf, type ConfinementPolicy, type Refusal } from './confinement';
import { lastWordsOf } from './last-words';
import { oneLine } from './progress-lines';
import { makeRunTempDir } from './run-temp-dir';
import type { AgentProfile } from './profiles';
import { bubblewrapCommand } from './process-sandbox';
import { nothingChangedFailure, workspaceHead } from './workspace-changes';
import { isRateLimitMessage, parseResetTime } from './rate-limits';
import { commandEnvironment } from '../util/safe-env';
import { errorMessage } from '../util/error-message';
import { descriptor3Pipe, writeDescriptor3 } from '../util/descriptor3';
import { settleAll } from '../util/settle-all';

export interface AcpOptions {
  profiles: AgentProfile[];
  /** Where agents may go besides their workspace, and whether they may run unsandboxed. */
  confinement?: ConfinementPolicy;
  /** Files and folders the agent must not read (the app's own: appPrivatePaths). */
  hiddenPaths?: string[];
  /**
   * Where each run's temporary folder (its TMPDIR) is made: a folder every agent's sandbox closes
   * but for the agent's own (agentTempDir, among the app's own files).
   */
  tempRoot: string;
  log?: (message: string) => void;
  /** How long a cancelled turn may take to end before the agent's process is killed (default 10 s). */
  cancelGraceMs?: number;
  /** The environment the agent's is built from (default: this process's). */
  baseEnv?: NodeJS.ProcessEnv;
}

function expandHome(dir: string, home: string): string {
  return dir === '~' ? home : dir.startsWith('~/') ? path.join(home, dir.slice(2)) : dir;
}

const failed = (errorMessage: string): AgentRunOutcome => ({
  status: 'failed',
  summary: '',
  errorMessage,
  usage: null,
  costUsd: null,
  sessionId: null,
  resetsAt: null,
});

/** The reset of a usage limit, from the error's data (`resetsAt`, ISO or epoch seconds) or its text. */
function resetOf(data: unknown, message: string, now = new Date()): Date | null {
  const raw = (data as { resetsAt?: unknown } | null)?.resetsAt;
  const at = typeof raw === 'number' ? new Date(raw * 1000) : typeof raw === 'string' ? new Date(raw) : null;
  if (at && !Number.isNaN(at.getTime()) && at.getTime() > now.getTime()) return at;
  return parseResetTime(message, now);
}

function addUsage(total: AgentUsage | null, response: PromptResponse): AgentUsage | null {
  const u = (response as { usage?: Record<string, number | null | undefined> | null }).usage;
  if (!u) return total;
  const base = total ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  return {
    inputTokens: base.inputTokens + Number(u.inputTokens ?? 0),
    // Reasoning tokens are billed as output.
    outputTokens: base.outputTokens + Number(u.outputTokens ?? 0) + Number(u.thoughtTokens ?? 0),
    cacheReadTokens: base.cacheReadTokens + Number(u.cachedReadTokens ?? 0),
    cacheCreationTokens: base.cacheCreationTokens + Number(u.cachedWriteTokens ?? 0),
  };
}

/** What one run saw of its agent's updates: progress lines, the last turn's answer, the cost. */
class RunTranscript {
  private pending = '';
  answer = '';
  /** The session's cumulative cost in USD at the last usage update, and before this run began. */
  costNow: number | null = null;
  costBefore = 0;
  loading = false;

  constructor(private readonly onProgress: (line: string) => void) {}

  flush(): void {
    const text = oneLine(this.pending);
    this.pending = '';
    if (text) this.onProgress(text);
  }

  newTurn(): void {
    this.flush();
    this.answer = '';
  }

  apply(update: SessionUpdate): void {
    if (update.sessionUpdate === 'usage_update') {
      const cost = update.cost?.currency === 'USD' ? update.cost.amount : null;
      if (cost === null) return;
      if (this.loading) this.costBefore = cost;
      else this.costNow = cost;
      return;
    }
    // A loaded session replays its history; none of it is this run's work.
    if (this.loading) return;
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
      this.pending += update.content.text;
      this.answer += update.content.text;
      // Chunks stream in pieces; a finished sentence or paragraph is a line people can read.
      if (/[.!?:]\s*$|\n\s*$/.test(this.pending)) this.flush();
    } else if (update.sessionUpdate === 'tool_call') {
      this.flush();
      this.onProgress(oneLine(update.title || update.kind || 'tool call'));
    } else if (update.sessionUpdate === 'plan') {
      this.flush();
      this.onProgress(oneLine(`Plan · ${update.entries.map((e) => e.content).join(' → ')}`));
    }
  }

  get runCost(): number | null {
    return this.costNow === null ? null : Math.max(0, this.costNow - this.costBefore);
  }
}

/**
 * Runs an agent that speaks the Agent Client Protocol on stdio (Codex through codex-acp, Gemini
 * CLI, Copilot CLI, OpenCode), started from the agent's profile in its workspace and confined like
 * Claude Code: the process in bubblewrap, the client's file methods behind the path guard, an
 * environment without the app's secrets, the project's tool policy on every permission request.
 */
export class AcpAdapter implements AgentAdapter {
  readonly type = 'acp';

  constructor(private readonly options: AcpOptions) {}

  async run(request: AgentRunRequest): Promise<AgentRunOutcome> {
    const profile = this.options.profiles.find((p) => p.name === request.profile);
    if (!profile) {
      return failed(
        request.profile
          ? `This agent's profile '${request.profile}' is not configured on this machine: add it to the AQ_AGENT_PROFILES file, or give the task to another agent.`
          : 'This ACP agent names no profile: create it again with create_agent backend=acp profile=<name> (list_agent_profiles shows the configured ones).',
      );
    }
    const policy = this.options.confinement ?? {};
    const base = this.options.baseEnv ?? process.env;
    const env: Record<string, string | undefined> = { ...commandEnvironment(base), ...profile.env };
    const sandboxed = profile.sandbox && missingSandboxPrograms(env.PATH).filter((p) => p === 'bwrap').length === 0;
    if (profile.sandbox && !sandboxed && !policy.allowUnsandboxed) {
      return failed(
        `The ${profile.name} agent runs in a sandbox, and this machine lacks bwrap: install the Debian package bubblewrap (apt-get install bubblewrap), or set AQ_ALLOW_UNSANDBOXED=true to let agents run unconfined.`,
      );
    }
    const home = env.HOME ?? os.homedir();
    const own = profile.writable.map((dir) => path.resolve(expandHome(dir, home)));
    // A folder is made when missing; a file (Claude Code's ~/.claude.json) is bound as it is.
    await settleAll(own.map(async (dir) => (await stat(dir).catch(() => null)) ?? mkdir(dir, { recursive: true })));
    const roots = [request.cwd, ...(policy.extraDirs ?? [])];
    const startHead = await workspaceHead(request.cwd);
    // Made last before the process, so that nothing between leaves it behind.
    const tempRoot = this.options.tempRoot;
    const tmp = await makeRunTempDir(tempRoot, 'aq-acp-');
    env.TMPDIR = tmp;
    const confined = sandboxed
      ? bubblewrapCommand(
          {
            home,
            writable: [...roots, ...own, tmp],
            own,
            // The temp root is closed rather than hidden, so that the agent's own folder in it comes back.
            hidden: (this.options.hiddenPaths ?? []).filter((p) => p !== tempRoot),
            closed: [...closedFolders(policy, home), tempRoot],
            // Agents run as one user: a shared /tmp would show each agent the others' TMPDIRs.
            privateTmp: true,
          },
          request.cwd,
          profile.command,
          profile.args,
        )
      : null;
    if (!sandboxed) this.log(request, `running ${profile.name} without the sandbox.`);
    const descriptor3 = confined?.descriptor3 ?? null;
    const child = spawn(confined ? 'bwrap' : profile.command, confined ? confined.args : profile.args, {
      cwd: request.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe', ...descriptor3Pipe(descriptor3)],
    });
    // A pipe to a process that died is reported by the connection; the stream's own error must not crash the app.
    child.stdin?.on('error', () => undefined);
    writeDescriptor3(child, descriptor3);
    try {
      return await this.session(request, profile, child, roots, startHead);
    } finally {
      await stopProcess(child);
      await rm(tmp, { recursive: true, force: true });
    }
  }

  private log(request: AgentRunRequest, message: string): void {
    this.options.log?.(`[acp ${request.taskId}] ${message}`);
  }

  private async session(
    request: AgentRunRequest,
    profile: AgentProfile,
    child: ChildProcess,
    roots: string[],
    startHead: string | null,
  ): Promise<AgentRunOutcome> {
    // Loaded on first use: the SDK is ESM-only and `aq` processes never need it.
    const acp = await import('@agentclientprotocol/sdk');
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (request.signal.aborted) abort();
    else request.signal.addEventListener('abort', abort, { once: true });
    const stderr: string[] = [];
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter((l) => l.trim())) {
        stderr.push(line);
        if (stderr.length > 20) stderr.shift();
        this.log(request, line);
      }
    });
    const exited = new Promise<string>((resolve) => {
      child.once('error', (err) => resolve(`could not be started (${errorMessage(err)})`));
      child.once('exit', (code, signal) => resolve(signal ? `was ended by ${signal}` : `exited with code ${code}`));
    });

    const refusals: Refusal[] = [];
    const files = new GuardedFiles(roots, settleAll(roots.map(realPathOf)), (refusal) => {
      refusals.push(refusal);
      request.onProgress?.(`Refused · ${refusal.tool} · ${refusal.path} (${refusal.place})`);
    });
    const requests = request.agentRequests;
    const judge = permissionJudge(requests, requests ? await requests.allowRules() : DEFAULT_TOOL_POLICY);
    const transcript = new RunTranscript((line) => request.onProgress?.(line));
    let stoppedByAnswer = false;

    const refuse = (reason: string) => new acp.RequestError(-32602, reason);
    const connection: ClientConnection = acp
      .client({ name: 'agent-queue' })
      .onNotification('session/update', ({ params }) => transcript.apply(params.update))
      .onRequest('session/request_permission', async ({ params, signal }) => {
        const outside = await this.outsideLocations(files, params);
        if (outside || controller.signal.aborted) return rejectOrCancel(params, !!outside);
        try {
          const { response, stop } = await judge.decide(params, AbortSignal.any([signal, controller.signal]));
          if (stop) {
            stoppedByAnswer = true;
            controller.abort();
          }
          return response;
        } catch (err) {
          this.log(request, `asking about ${params.toolCall.title ?? 'a tool call'} failed: ${errorMessage(err)}`);
          return rejectOrCancel(params, true);
        }
      })
      .onRequest('fs/read_text_file', async ({ params }) => {
        const result = await files.read(params);
        if ('refused' in result) throw refuse(result.refused);
        return result;
      })
      .onRequest('fs/write_text_file', async ({ params }) => {
        const result = await files.write(params);
        if (result) throw refuse(result.refused);
        return {};
      })
      .connect(
        acp.ndJsonStream(
          Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
        ),
      );
    void exited.then((how) => connection.close(new Error(`The ${profile.name} agent ${how}.`)));

    let sessionId: string | null = null;
    let usage: AgentUsage | null = null;
    const cancel = () => {
      if (sessionId) void connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
      // An agent that ignores the cancel is ended after a grace period.
      setTimeout(() => child.kill('SIGTERM'), this.options.cancelGraceMs ?? 10_000).unref();
    };
    controller.signal.addEventListener('abort', cancel, { once: true });
    try {
      const init = await connection.agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: 'agent-queue', version: '1' },
      });
      let prompt = request.prompt;
      if (request.resumeSessionId && init.agentCapabilities?.loadSession) {
        transcript.loading = true;
        try {
          await connection.agent.request('session/load', { sessionId: request.resumeSessionId, cwd: request.cwd, mcpServers: [] });
          sessionId = request.resumeSessionId;
        } catch (err) {
          this.log(request, `loading session ${request.resumeSessionId} failed: ${errorMessage(err)}`);
          request.onProgress?.('The agent could not load its earlier session; it starts a new one with the task and the thread so far.');
        } finally {
          transcript.loading = false;
        }
      } else if (request.resumeSessionId) {
        request.onProgress?.(`${profile.name} cannot load an earlier session; it starts a new one with the task and the thread so far.`);
      }
      if (!sessionId) {
        sessionId = (await connection.agent.request('session/new', { cwd: request.cwd, mcpServers: [] })).sessionId;
        if (request.resumeSessionId) prompt = request.freshPrompt ?? request.prompt;
      }
      if (controller.signal.aborted) cancel();
      let stopReason: PromptResponse['stopReason'] = 'end_turn';
      for (;;) {
        transcript.newTurn();
        const response = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: prompt }] });
        transcript.flush();
        usage = addUsage(usage, response);
        stopReason = response.stopReason;
        if (stopReason !== 'end_turn' || controller.signal.aborted) break;
        // Messages sent while the turn ran start the next one: ACP takes no input mid-turn.
        const next = await this.takeMessages(request);
        if (!next) break;
        prompt = next;
      }
      const base = { usage, costUsd: transcript.runCost, sessionId, resetsAt: null, summary: transcript.answer.trim() };
      if (controller.signal.aborted || stopReason === 'cancelled') {
        return { ...base, status: 'aborted', errorMessage: stoppedByAnswer ? 'Stopped by a person’s answer.' : 'Agent was stopped.' };
      }
      if (stopReason === 'refusal') return { ...base, status: 'failed', errorMessage: `The ${profile.name} agent refused to continue.` };
      if (stopReason === 'max_tokens' || stopReason === 'max_turn_requests') {
        return {
          ...base,
          status: 'failed',
          errorMessage: `The ${profile.name} agent stopped at its ${stopReason === 'max_tokens' ? 'token' : 'turn'} limit before finishing.`,
        };
      }
      const outcome: AgentRunOutcome = { ...base, status: 'completed', errorMessage: null };
      const failure = await nothingChangedFailure(refusals, files.writes, request.cwd, startHead);
      return failure ? { ...outcome, status: 'failed', errorMessage: failure } : outcome;
    } catch (err) {
      transcript.flush();
      const message = errorMessage(err);
      const data = (err as { data?: unknown }).data;
      const base = { usage, costUsd: transcript.runCost, sessionId, summary: transcript.answer.trim() };
      if (controller.signal.aborted) return { ...base, status: 'aborted', errorMessage: 'Agent was stopped.', resetsAt: null };
      if (isRateLimitMessage(message)) return { ...base, status: 'rate_limited', errorMessage: message, resetsAt: resetOf(data, message) };
      const last = lastWordsOf(stderr);
      return {
        ...base,
        status: 'failed',
        errorMessage: `${message}${last && !message.includes(last) ? ` (its last words: ${oneLine(last)})` : ''}`,
        resetsAt: null,
      };
    } finally {
      request.signal.removeEventListener('abort', abort);
      connection.close();
    }
  }

  /** A permission request whose files lie outside the workspace (it is refused, and recorded). */
  private async outsideLocations(files: GuardedFiles, params: RequestPermissionRequest): Promise<string | null> {
    for (const location of params.toolCall.locations ?? []) {
      const refused = await files.refusal(params.toolCall.kind === 'read' ? 'Read' : 'Write', location.path);
      if (refused) return refused;
    }
    return null;
  }

  private async takeMessages(request: AgentRunRequest): Promise<string | null> {
    if (!request.inbox) return null;
    const taken: string[] = [];
    for (const message of await request.inbox.pending()) if (await request.inbox.claim(message)) taken.push(message.text);
    return taken.length ? taken.join('\n\n') : null;
  }
}

function rejectOrCancel(params: RequestPermissionRequest, reject: boolean) {
  const option = reject ? params.options.find((o) => REJECT.includes(o.kind)) : undefined;
  return option ? { outcome: { outcome: 'selected' as const, optionId: option.optionId } } : { outcome: { outcome: 'cancelled' as const } };
}

/** Ends the agent's process: closed input first, then SIGTERM, then SIGKILL. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const term = setTimeout(() => child.kill('SIGTERM'), 2000);
  const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(term);
  clearTimeout(kill);
}
