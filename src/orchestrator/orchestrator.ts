import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config';
import type { ChatProvider } from '../model/provider';
import type { Database } from '../db/database';
import type { AgentAdapter } from '../agents/adapter';
import type { TaskGit } from './completion';
import { DEFAULT_LEASE_STALE_MS, takeRestartRequest } from './daemon-restart';
import { GitManager } from '../git/git-manager';
import { ensureAgentPool, noticeWaiting, type CycleDeps, type CycleReport } from './cycle';
import type { EventLog } from './events';
import type { SkipResult } from './port';
import { recoverStaleState, type RecoveryReport } from './recovery';
import { loopClock, RunLoop, runnerDeps } from './run-loop';
import { TrainDriver } from './landing';
import { TaskControl } from './task-control';
import type { ProvisioningGit } from './workspace-provisioning';
import type { Clock } from '../util/clock';
import { gitCredentialsDir } from '../util/app-home-files';

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
  /** The time of the loop's waits (default: the system clock); tests pass a ManualClock and move it. */
  clock?: Clock;
  /** The time of day only (a test that sets the date); waits stay on `clock`. */
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
  private readonly loop: RunLoop;
  /** Lands the merge trains beside the loop (landing.ts). */
  private readonly trains: TrainDriver;
  private readonly waitingNotified = new Set<string>();
  private readonly log: (message: string) => void;
  private readonly now: () => Date;
  private readonly workspaceGit: ProvisioningGit;
  private leader = false;
  lastRecovery: RecoveryReport | null = null;

  constructor(
    db: Database,
    events: EventLog,
    private readonly config: AppConfig,
    private readonly options: OrchestratorOptions,
  ) {
    super(db, events, options.log);
    this.owner = options.owner ?? `daemon:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = options.log ?? ((m) => console.error(m));
    const clock = loopClock(options);
    this.now = () => clock.now();
    this.workspaceGit = options.workspaceGit ?? new GitManager({ credentialsDir: gitCredentialsDir(config.home) });
    this.trains = new TrainDriver({ db, events, machine: this.machine, git: options.git, config, log: this.log, workerId: null });
    this.loop = new RunLoop(
      {
        db,
        events,
        machine: this.machine,
        runner: runnerDeps({ db, events, config, machine: this.machine, log: this.log, clock }, options),
        cycle: () => this.cycleDeps(),
        clock,
        log: this.log,
      },
      {
        logName: 'Orchestrator',
        claimant: null,
        reconcileGraceMs: options.reconcileGraceMs ?? 10_000,
        intervalMs: options.intervalMs ?? 2000,
        beforePass: async () => {
          if (!(await this.holdLease())) return false;
          await this.takeRestartRequest();
          return true;
        },
        mayLaunch: async () => this.localAgents && !(await this.isPaused()),
        afterLaunches: async (deps, snapshot, report) => {
          for (const a of report.launched) this.waitingNotified.delete(a.taskId);
          await noticeWaiting(deps, snapshot, report.launched, this.waitingNotified);
        },
        afterPass: async () => {
          // The merge trains land beside the loop; each pass asks them to look.
          this.trains.kick();
          await options.onTick?.();
        },
      },
    );
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Task ids with a live agent run in this process. */
  get runningTaskIds(): string[] {
    return this.loop.runningTaskIds;
  }

  async start(): Promise<void> {
    if (!this.loop.isStopped) return;
    await this.loop.start();
    await this.loop.runCycle();
  }

  /** Stops the loop, aborts live runs (they go back to READY), and gives up the lease. */
  async stop(): Promise<void> {
    if (this.loop.isStopped) return;
    await this.loop.stop();
    await this.trains.idle();
    if (this.leader) await this.db.scheduling.releaseLease(this.owner).catch(() => undefined);
    this.leader = false;
  }

  /** Asks for a pass soon (coalesced with one already running). */
  kick(): void {
    this.loop.kick();
  }

  /** Resolves when no agent run is live in this process. */
  async idle(): Promise<void> {
    await this.loop.idle();
  }

  /** One full pass. Never throws; errors are logged and the next pass tries again. */
  async runCycle(): Promise<CycleReport | null> {
    return this.loop.runCycle();
  }

  private cycleDeps(): CycleDeps {
    return {
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

  private get localAgents(): boolean {
    return this.options.localAgents ?? this.config.agents.local;
  }

  /** Stops the task in the database, then ends its live run (the CLI needs ~2 s to exit). */
  override async stopTask(taskId: string): Promise<void> {
    await super.stopTask(taskId);
    const run = this.loop.run(taskId);
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
