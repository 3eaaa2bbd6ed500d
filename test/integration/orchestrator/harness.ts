import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentAdapter, AgentRunOutcome, AgentRunRequest } from '../../../src/agents/adapter';
import type { EventRecord } from '../../../src/db/repositories/events';
import { GitManager } from '../../../src/git/git-manager';
import type { OrchestratorOptions } from '../../../src/orchestrator/orchestrator';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { cloneWorkspace, createOriginRepo } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { pauseUntilChange, wakeWaits } from '../../support/wake';

export type Behaviour = (req: AgentRunRequest, attempt: number) => Promise<Partial<AgentRunOutcome>>;

/**
 * A test double of the external agent process: each run calls the behaviour for its task
 * (default: succeed with a summary). Timing-sensitive tests use it; the e2e suite runs the real CLI.
 */
export class ScriptedAdapter implements AgentAdapter {
  readonly type = 'claude';
  readonly calls: AgentRunRequest[] = [];
  readonly attempts = new Map<string, number>();
  behaviours = new Map<string, Behaviour>();
  fallback: Behaviour = async () => ({});

  on(taskId: string, behaviour: Behaviour): this {
    this.behaviours.set(taskId, behaviour);
    return this;
  }

  async run(req: AgentRunRequest): Promise<AgentRunOutcome> {
    this.calls.push(req);
    wakeWaits();
    const attempt = (this.attempts.get(req.taskId) ?? 0) + 1;
    this.attempts.set(req.taskId, attempt);
    const partial = await (this.behaviours.get(req.taskId) ?? this.fallback)(req, attempt);
    return {
      status: 'completed',
      summary: `done ${req.taskId}`,
      errorMessage: null,
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 5, cacheCreationTokens: 3 },
      costUsd: 0.01,
      sessionId: `s-${req.taskId}-${attempt}`,
      resetsAt: null,
      ...partial,
    };
  }
}

/** Writes a file in the run's workspace (what an agent does). */
export async function writeIn(req: AgentRunRequest, file: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(req.cwd, file)), { recursive: true });
  await writeFile(path.join(req.cwd, file), content);
}

/** Resolves when the run is aborted. */
export function untilAborted(req: AgentRunRequest): Promise<void> {
  return new Promise((resolve) => {
    if (req.signal.aborted) resolve();
    else req.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Probes until `probe` answers: again at once when a test runtime emits an event or a scripted
 * run starts (support/wake.ts), else after a pause that grows from 10 ms to 200 ms. The deadline
 * is generous on purpose: it only bounds a failing test, and on a loaded shared machine a passing
 * one can take many times its quiet duration.
 */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await pauseUntilChange(pause);
  }
}

export interface Harness {
  rt: TestRuntime;
  adapter: ScriptedAdapter;
  origin: string;
  workspace: string;
  events: EventRecord[];
  start(options?: Partial<OrchestratorOptions>): Promise<void>;
  task(title: string, extra?: Record<string, unknown>, dependsOn?: string[]): Promise<string>;
  status(taskId: string): Promise<string | undefined>;
  waitStatus(taskId: string, status: string, timeoutMs?: number): Promise<void>;
  eventsOf(type: string, taskId?: string): EventRecord[];
  cleanup(): Promise<void>;
}

/**
 * A runtime with one project whose workspace is a clone of a bare origin, and `agents` agents
 * (the daemon's default pool is off: AQ_AGENTS=0; zero-setup.test.ts covers it).
 */
export async function makeHarness(
  options: {
    agents?: number;
    workspaces?: number;
    projectId?: string;
    env?: Record<string, string>;
    /** Workspaces where the app makes them, in AQ_WORKSPACE_DIR, instead of beside it in AQ_HOME. */
    inWorkspaceDir?: boolean;
  } = {},
): Promise<Harness> {
  const rt = await makeTestRuntime({ AQ_AGENTS: '0', ...options.env });
  const projectId = options.projectId ?? 'proj';
  const origin = await createOriginRepo(rt.home);
  await rt.db.projects.create({ id: projectId, name: projectId, workspace: path.join(rt.home, 'project-dir'), maxConcurrentAgents: 5 });
  let workspace = '';
  for (let i = 0; i < (options.workspaces ?? 1); i++) {
    const parent = options.inWorkspaceDir ? path.join(rt.config.workspaceDir, projectId, 'workspaces') : rt.home;
    await mkdir(parent, { recursive: true });
    const dir = await cloneWorkspace(origin, path.join(parent, `ws${i}`));
    if (i === 0) workspace = dir;
    await rt.db.workspaces.create({ id: `ws${i}`, projectId, name: `ws${i}`, path: dir, sourceType: 'clone', repoId: null });
  }
  for (let i = 0; i < (options.agents ?? 1); i++) await rt.db.agents.create({ id: `agent-${i}`, name: `Agent ${i}`, type: 'claude' });
  const adapter = new ScriptedAdapter();
  const events: EventRecord[] = [];
  rt.events.subscribe((e) => {
    events.push(e);
  });
  const h: Harness = {
    rt,
    adapter,
    origin,
    workspace,
    events,
    async start(extra = {}) {
      await rt.startDaemon({
        adapters: { claude: adapter },
        git: new GitManagerTaskGit(new GitManager()),
        // The fallback poll only: every event and every run's end kick a pass at once. An idle pass
        // every 100 ms cost a quarter of a core for as long as a test ran.
        intervalMs: 500,
        progressIntervalMs: 20,
        log: () => undefined,
        ...extra,
      });
    },
    async task(title, extra = {}, dependsOn = []) {
      const t = await rt.db.tasks.create(
        { projectId, title, description: `Do: ${title}`, ...(dependsOn.length && { status: 'DEFINED' }), ...extra },
        dependsOn,
      );
      rt.daemon()?.kick();
      return t.id;
    },
    async status(taskId) {
      return (await rt.db.tasks.get(taskId))?.status;
    },
    async waitStatus(taskId, status, timeoutMs = 60_000) {
      await waitFor(async () => (await h.status(taskId)) === status, timeoutMs, `${taskId} to be ${status} (is ${await h.status(taskId)})`);
    },
    eventsOf(type, taskId) {
      return events.filter((e) => e.type === type && (!taskId || e.taskId === taskId));
    },
    async cleanup() {
      await rt.stopDaemon();
      await rt.cleanup();
    },
  };
  return h;
}
