import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config';
import type { ChatProvider } from '../model/provider';
import type { Database } from '../db/database';
import type { AgentAdapter } from '../agents/adapter';
import type { TaskGit } from './completion';
import { DEFAULT_LEASE_STALE_MS, takeRestartRequest } from './daemon-restart';
import { GitManager } from '../git/git-manager';
import { buildSnapshot, ensureAgentPool, noticeWaiting, promoteReady, resumePaused, type CycleDeps, type CycleReport } from './cycle';
import type { EventLog } from './events';
import type { SkipResult } from './port';
import { reapLapsedClaims, recoverStaleState, type RecoveryReport } from './recovery';
import { reconcile } from './reconciler';
import { TrainDriver } from './landing';
import { schedule } from './scheduler';
import { TaskControl } from './task-control';
import { claimLaunch } from './task-moves';
import type { RunnerDeps } from './task-runner';
import { abortOrphanedRuns, runClaimed, type ClaimedRunHandle } from './claimed-run';
import type { ProvisioningGit } from './workspace-provisioning';

export interface OrchestratorOptions {
  adapters: Record<string, AgentAdapter>;
  git: TaskGit;
  /** Clones workspaces on demand (default: a GitManager). */
  workspaceGit?: ProvisioningGit;
  /** Agents kept in the default pool (default: config AQ_AGENTS). */
  agentPoolSize?: number;
  /** Whether this process runs agents itself (default: config AQ_LOCAL_AGENTS); else `aq worker`s do. */
  localAgents?: boolean;
  chatProvider?: ChatProvider | null;
  /** Called when another process asked this daemon to restart (restart_daemon from `aq`). */
  onRestartRequest?: (reason: string) => void;
  /** Called at the end of every cycle: the hook engine's periodic check goes here. */
  onTick?: () => Promise<void>;
  intervalMs?: number;
  /** A lease whose heartbeat is older than this belongs to a dead daemon. */
  leaseStaleMs?: number;
  progressIntervalMs?: number;
  rateLimitBackoffMs?: number;
  /** The scheduler's rolling window for token usage and completed tasks. */
  windowMs?: number;
  /** How long a task may sit in a state nothing moves before the reconciler repairs it (default 10 s). */
  reconcileGraceMs?: number;
  owner?: string;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * The daemon's orchestrator: a TaskControl (so commands work the same) plus the loop that
 * resumes, promotes, schedules and launches, and the live runs it can abort. Only the holder of
 * the `daemon_lease` row schedules; another daemon started on the same database stands by.
 */
export class Orchestrator extends TaskControl {
  readonly owner: string;
  private readonly runs = new Map<string, ClaimedRunHandle>();
  private readonly waitingNotified = new Set<string>();
  private readonly log: (message: string) => void;
  private readonly now: () => Date;
  private readonly workspaceGit: ProvisioningGit;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private cycling: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private leader = false;
  lastRecovery: RecoveryReport | null = null;
  private lastReconcile = 0;
  /** Lands the merge trains beside the loop (landing.ts). */
  private readonly trains: TrainDriver;

  constructor(
    db: Database,
    events: EventLog,
    private readonly config: AppConfig,
    private readonly options: OrchestratorOptions,
  ) {
    super(db, events, options.log);
    this.owner = options.owner ?? `daemon:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = options.log ?? ((m) => console.error(m));
    this.now = options.now ?? (() => new Date());
    this.workspaceGit = options.workspaceGit ?? new GitManager();
    this.trains = new TrainDriver({ db, events, machine: this.machine, git: options.git, config, log: this.log });
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Task ids with a live agent run in this process. */
  get runningTaskIds(): string[] {
    return [...this.runs.keys()];
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.events.subscribe((event) => {
      if (event.type === 'task_completed') this.completedCache = null;
      if (event.type !== 'task_progress') this.kick();
    });
    await this.runCycle();
    this.timer = setInterval(() => this.kick(), this.options.intervalMs ?? 2000);
    this.timer.unref?.();
  }

  /** Stops the loop, aborts live runs (they go back to READY), and gives up the lease. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.cycling;
    for (const run of this.runs.values()) run.controller.abort();
    await this.idle();
    await this.trains.idle();
    if (this.leader) await this.db.scheduling.releaseLease(this.owner).catch(() => undefined);
    this.leader = false;
  }

  /** Asks for a pass soon (coalesced with one already running). */
  kick(): void {
    if (this.stopped) return;
    if (this.cycling) {
      this.again = true;
      return;
    }
    void this.runCycle();
  }

  /** Resolves when no agent run is live in this process. */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }

  /** One full pass. Never throws; errors are logged and the next pass tries again. */
  async runCycle(): Promise<CycleReport | null> {
    if (this.cycling) {
      this.again = true;
      await this.cycling;
      return null;
    }
    let report: CycleReport | null = null;
    const pass = (async () => {
      do {
        this.again = false;
        try {
          report = await this.cycleOnce();
        } catch (err) {
          this.log(`Orchestrator cycle failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
      } while (this.again && !this.stopped);
    })();
    this.cycling = pass;
    try {
      await pass;
    } finally {
      this.cycling = null;
    }
    return report;
  }

  private completedCache: { at: number; value: Record<string, number> } | null = null;

  /**
   * Tasks completed per project in the window, cached for 30 s: the count scans completed tasks
   * (no completed_at index) and only decides the min-task guarantee, where seconds do not matter.
   */
  private async completedSince(since: Date): Promise<Record<string, number>> {
    const now = this.now().getTime();
    if (!this.completedCache || now - this.completedCache.at > 30_000) {
      this.completedCache = { at: now, value: await this.db.scheduling.completedSince(since) };
    }
    return this.completedCache.value;
  }

  private cycleDeps(): CycleDeps {
    return {
      completedSince: (since) => this.completedSince(since),
      db: this.db,
      events: this.events,
      machine: this.machine,
      git: this.options.git,
      provisioning: { git: this.workspaceGit, retryMs: 60_000 },
      now: this.now,
      windowMs: this.options.windowMs ?? 24 * 3600_000,
      log: this.log,
    };
  }

  private async cycleOnce(): Promise<CycleReport> {
    const report: CycleReport = { resumed: [], promoted: [], assignments: [], launched: [], blocked: [] };
    if (!(await this.holdLease())) return report;
    await this.takeRestartRequest();
    await abortOrphanedRuns(this.db, this.runs.values(), this.log);
    await reapLapsedClaims(this.db, this.events, this.machine, this.now());
    await this.reconcileNowAndThen();
    const deps = this.cycleDeps();
    report.resumed = await resumePaused(deps);
    report.promoted = await promoteReady(deps);
    this.trains.kick();
    const paused = await this.isPaused();
    if (!paused && !this.stopped && this.localAgents) {
      const live = [...this.runs.values()];
      const busy = new Set(live.map((r) => r.workspaceId));
      const snapshot = await buildSnapshot(deps, {
        globalPaused: paused,
        excludeWorkspaceIds: busy,
        excludeAgentIds: new Set(live.map((r) => r.agentId)),
        blocked: report.blocked,
      });
      report.assignments = schedule(snapshot);
      for (const a of report.assignments) {
        if (this.runs.has(a.taskId)) continue; // its last run is still winding down
        const runId = randomUUID();
        const refused = await claimLaunch(this.db, this.machine, { ...a, runId, clock: this.now });
        if (refused) {
          this.log(`Launch of ${a.taskId} skipped: ${refused.replace(/_/g, ' ')}.`);
          continue;
        }
        this.launch(a.taskId, a.agentId, a.workspaceId, runId);
        this.waitingNotified.delete(a.taskId);
        report.launched.push(a);
      }
      await noticeWaiting(deps, snapshot, report.launched, this.waitingNotified);
    }
    if (this.options.onTick) {
      await this.options.onTick().catch((err) => this.log(`Tick callback failed: ${err instanceof Error ? err.message : String(err)}`));
    }
    return report;
  }

  /** The reconciler's pass, at most twice per grace period: what it repairs has waited that long already. */
  private async reconcileNowAndThen(): Promise<void> {
    const now = this.now();
    const graceMs = this.options.reconcileGraceMs ?? 10_000;
    if (now.getTime() - this.lastReconcile < graceMs / 2) return;
    this.lastReconcile = now.getTime();
    const repairs = await reconcile(this.db, this.events, this.machine, { workerId: null, liveTaskIds: this.runningTaskIds, graceMs, now });
    for (const r of repairs) this.log(`Repaired ${r.taskId} (${r.repair}): ${r.reason}.`);
  }

  /** Takes or renews the lease; the first time it is won, recovers what a dead daemon left. */
  private async holdLease(): Promise<boolean> {
    const won = await this.db.scheduling.acquireLease(this.owner, this.now(), this.options.leaseStaleMs ?? DEFAULT_LEASE_STALE_MS);
    if (!won) {
      if (this.leader) this.log('Another daemon took the scheduling lease; this one stands by.');
      this.leader = false;
      return false;
    }
    if (!this.leader) {
      // Leader only once recovery went through; a failure is retried next cycle.
      this.lastRecovery = await recoverStaleState(this.db, this.events, this.machine, this.runningTaskIds);
      if (this.localAgents) {
        await ensureAgentPool(
          { db: this.db, events: this.events, log: this.log },
          this.options.agentPoolSize ?? this.config.agents.poolSize,
        );
      }
      this.leader = true;
      const r = this.lastRecovery;
      if (r.tasks.length || r.agents || r.locks) {
        this.log(
          `Recovered after restart: ${r.tasks.length} task(s) back to READY, ${r.agents} agent(s) freed, ${r.locks} lock(s) released.`,
        );
      }
    }
    return true;
  }

  /** A restart asked for from another process is passed on; the process then shuts down. */
  private async takeRestartRequest(): Promise<void> {
    const request = await takeRestartRequest(this.db, this.owner);
    if (!request) return;
    this.log(`Restart requested from another process (${request.reason}).`);
    this.options.onRestartRequest?.(request.reason);
  }

  private runnerDeps(): RunnerDeps {
    return {
      db: this.db,
      events: this.events,
      config: this.config,
      machine: this.machine,
      git: this.options.git,
      adapters: this.options.adapters,
      chatProvider: this.options.chatProvider,
      progressIntervalMs: this.options.progressIntervalMs ?? 2000,
      rateLimitBackoffMs: this.options.rateLimitBackoffMs ?? 60_000,
      log: this.log,
    };
  }

  private get localAgents(): boolean {
    return this.options.localAgents ?? this.config.agents.local;
  }

  private launch(taskId: string, agentId: string, workspaceId: string, runId: string): void {
    const handle: ClaimedRunHandle = {
      taskId,
      agentId,
      workspaceId,
      runId,
      controller: new AbortController(),
      phase: 'starting',
      done: Promise.resolve(),
    };
    this.runs.set(taskId, handle);
    handle.done = runClaimed(this.runnerDeps(), handle).finally(() => {
      this.runs.delete(taskId);
      this.kick();
    });
  }

  /** Stops the task in the database, then ends its live run (the CLI needs ~2 s to exit). */
  override async stopTask(taskId: string): Promise<void> {
    await super.stopTask(taskId);
    const run = this.runs.get(taskId);
    if (run) {
      run.controller.abort();
      await Promise.race([run.done, new Promise((r) => setTimeout(r, 10_000).unref())]);
    }
  }

  override async skipTask(taskId: string): Promise<SkipResult> {
    const outcome = await super.skipTask(taskId);
    this.kick();
    return outcome;
  }

  override async resume(): Promise<void> {
    await super.resume();
    this.kick();
  }
}
