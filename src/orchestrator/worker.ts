import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config';
import type { AgentAdapter } from '../agents/adapter';
import type { Database } from '../db/database';
import type { ChatProvider } from '../model/provider';
import { GitManager } from '../git/git-manager';
import { abortOrphanedRuns, runClaimed, type ClaimedRunHandle } from './claimed-run';
import type { TaskGit } from './completion';
import { buildSnapshot, promoteReady, resumePaused, type CycleDeps } from './cycle';
import type { EventLog } from './events';
import { reapLapsedClaims, recoverStaleState } from './recovery';
import { reconcile } from './reconciler';
import { TrainDriver } from './landing';
import { schedule } from './scheduler';
import { TaskStateMachine } from './state-machine';
import { claimLaunch } from './task-moves';
import type { RunnerDeps } from './task-runner';
import type { ProvisioningGit } from './workspace-provisioning';

export interface WorkerOptions {
  /** Unique in the fleet and stable across restarts: a restarted worker recovers its own claims. */
  name: string;
  host: string;
  /** Agents it runs at once. */
  capacity: number;
  /** What it can reach; `project:<id>` labels limit it to those projects. */
  labels: string[];
  /** Its own folder for workspaces (clones of the projects' repos). */
  dir: string;
  adapters: Record<string, AgentAdapter>;
  git: TaskGit;
  workspaceGit?: ProvisioningGit;
  chatProvider?: ChatProvider | null;
  /** A claim lapses this long after the last heartbeat that renewed it (default 30 s). */
  leaseMs?: number;
  /** How often it heartbeats (default a third of the lease). */
  heartbeatMs?: number;
  /** How often it looks for work and watches its runs (default 1 s). */
  intervalMs?: number;
  progressIntervalMs?: number;
  rateLimitBackoffMs?: number;
  windowMs?: number;
  /** The clock of leases, heartbeats and the reconciler's grace (tests move it). */
  now?: () => Date;
  log?: (message: string) => void;
}

const PAUSED_KEY = 'orchestrator_paused';

/**
 * An `aq worker`: runs agents on this machine for the queue in the shared database. It
 * registers and heartbeats (renewing the leases of its claims), makes the same scheduling pass
 * as the app (its own agents and workspaces, the fleet's counts), claims each launch atomically
 * with the rules checked again, runs it fenced on its run record, and watches its runs: a task
 * stopped from Slack, or a claim it lost, ends the run here. Everything it does reaches Slack
 * through the events table.
 */
export class FleetWorker {
  private readonly runs = new Map<string, ClaimedRunHandle>();
  private readonly machine: TaskStateMachine;
  /** Lands the merge trains beside the loop (landing.ts). */
  private readonly trains: TrainDriver;
  private readonly log: (message: string) => void;
  private readonly leaseMs: number;
  private readonly workspaceGit: ProvisioningGit;
  private timers: NodeJS.Timeout[] = [];
  private cycling: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lastBeat = 0;
  private lastReconcile = 0;
  private readonly heartbeatMs: number;
  private readonly now: () => Date;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly db: Database,
    private readonly events: EventLog,
    private readonly config: AppConfig,
    private readonly options: WorkerOptions,
  ) {
    this.log = options.log ?? ((m) => console.error(m));
    this.machine = new TaskStateMachine(db, this.log);
    this.trains = new TrainDriver({ db, events, machine: this.machine, git: options.git, config, log: this.log });
    this.leaseMs = options.leaseMs ?? 30_000;
    // A third of the lease: two renewals can be missed before a live worker's claim lapses.
    this.heartbeatMs = options.heartbeatMs ?? Math.max(100, Math.floor(this.leaseMs / 3));
    this.now = options.now ?? (() => new Date());
    this.workspaceGit = options.workspaceGit ?? new GitManager();
  }

  get name(): string {
    return this.options.name;
  }

  /** Task ids this worker runs right now. */
  get runningTaskIds(): string[] {
    return [...this.runs.keys()];
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    const { name, host, capacity, labels } = this.options;
    const now = this.now().getTime();
    await this.db.workers.register({ name, host, capacity, labels, leaseMs: this.leaseMs }, now);
    this.lastBeat = now;
    await this.db.workers.ensureAgents(name, capacity, new Date(now));
    // What this worker's previous life (same name) left behind is its own to put back.
    const recovered = await recoverStaleState(this.db, this.events, this.machine, [], name);
    if (recovered.tasks.length > 0) this.log(`Worker ${name}: ${recovered.tasks.length} task(s) of a previous run back to READY.`);
    this.stopped = false;
    this.unsubscribe = this.events.subscribe((event) => {
      if (event.type !== 'task_progress') this.kick();
    });
    this.timers = [
      setInterval(() => void this.heartbeat(), this.heartbeatMs),
      setInterval(() => this.kick(), this.options.intervalMs ?? 1000),
    ];
    for (const t of this.timers) t.unref?.();
    this.log(`Worker ${name} on ${host} started: ${capacity} agent(s), workspaces in ${this.options.dir}.`);
    this.kick();
  }

  /** Stops taking work, ends live runs (their tasks go back to READY) and says so in the table. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unsubscribe?.();
    await this.cycling;
    for (const run of this.runs.values()) run.controller.abort();
    await this.idle();
    await this.trains.idle();
    await this.db.workers.markStopped(this.options.name, this.now().getTime()).catch(() => undefined);
  }

  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }

  kick(): void {
    if (this.stopped) return;
    if (this.cycling) {
      this.again = true;
      return;
    }
    this.cycling = (async () => {
      do {
        this.again = false;
        try {
          await this.cycleOnce();
        } catch (err) {
          this.log(`Worker cycle failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.cycling = null;
    });
  }

  /**
   * Says it is alive and renews its claims, and measures how late the renewal came (a busy
   * machine delays timers): a late one is logged. A run whose claim lapsed before it could be
   * renewed, or when the database has been out of reach for longer than a lease, may be someone
   * else's by now: the worker ends it (its moves are fenced anyway) instead of racing the next holder.
   */
  private async heartbeat(): Promise<void> {
    const now = this.now().getTime();
    const lag = now - this.lastBeat - this.heartbeatMs;
    if (lag > this.heartbeatMs / 2) {
      this.log(
        `Worker ${this.options.name}: heartbeat ${lag} ms late (renewals are due every ${this.heartbeatMs} ms, leases last ${this.leaseMs} ms).`,
      );
    }
    try {
      await this.db.workers.heartbeat(this.options.name, now);
      const { lapsed } = await this.db.runRecords.renewLeases(this.options.name, now, now + this.leaseMs);
      this.lastBeat = now;
      for (const taskId of lapsed) {
        const run = this.runs.get(taskId);
        if (!run || run.controller.signal.aborted) continue;
        this.log(
          `Worker ${this.options.name}: the claim on ${taskId} lapsed before it was renewed; ending its run so another worker can take it.`,
        );
        run.controller.abort();
      }
    } catch (err) {
      this.log(`Worker heartbeat failed: ${err instanceof Error ? err.message : String(err)}`);
      if (now - this.lastBeat > this.leaseMs) {
        for (const run of this.runs.values()) run.controller.abort();
      }
    }
  }

  private cycleDeps(): CycleDeps {
    const projects = this.options.labels.filter((l) => l.startsWith('project:')).map((l) => l.slice('project:'.length));
    return {
      db: this.db,
      events: this.events,
      machine: this.machine,
      git: this.options.git,
      provisioning: { git: this.workspaceGit, retryMs: 60_000 },
      now: this.now,
      windowMs: this.options.windowMs ?? 24 * 3600_000,
      log: this.log,
      worker: { id: this.options.name, dir: this.options.dir, projects: projects.length > 0 ? new Set(projects) : null },
    };
  }

  private async cycleOnce(): Promise<void> {
    await abortOrphanedRuns(this.db, this.runs.values(), this.log);
    await reapLapsedClaims(this.db, this.events, this.machine, this.now());
    await this.reconcileNowAndThen();
    const deps = this.cycleDeps();
    await resumePaused(deps);
    await promoteReady(deps);
    this.trains.kick();
    if (this.stopped || (await this.db.state.get(PAUSED_KEY, false))) return;
    const live = [...this.runs.values()];
    const snapshot = await buildSnapshot(deps, {
      globalPaused: false,
      excludeWorkspaceIds: new Set(live.map((r) => r.workspaceId)),
      excludeAgentIds: new Set(live.map((r) => r.agentId)),
      blocked: [],
    });
    for (const a of schedule(snapshot)) {
      if (this.stopped) return;
      if (this.runs.has(a.taskId)) continue; // its last run here is still winding down
      const runId = randomUUID();
      const refused = await claimLaunch(this.db, this.machine, {
        ...a,
        runId,
        workerId: this.options.name,
        leaseMs: this.leaseMs,
        clock: this.now,
      });
      if (refused) {
        this.log(`Worker ${this.options.name}: launch of ${a.taskId} skipped: ${refused.replace(/_/g, ' ')}.`);
        continue;
      }
      this.launch({ taskId: a.taskId, agentId: a.agentId, workspaceId: a.workspaceId, runId });
    }
  }

  /** The reconciler's pass, at most twice a lease: what it repairs has waited a lease already. */
  private async reconcileNowAndThen(): Promise<void> {
    const now = this.now();
    if (now.getTime() - this.lastReconcile < this.leaseMs / 2) return;
    this.lastReconcile = now.getTime();
    const repairs = await reconcile(this.db, this.events, this.machine, {
      workerId: this.options.name,
      liveTaskIds: this.runningTaskIds,
      graceMs: this.leaseMs,
      now,
    });
    for (const r of repairs) this.log(`Worker ${this.options.name} repaired ${r.taskId} (${r.repair}): ${r.reason}.`);
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

  private launch(a: { taskId: string; agentId: string; workspaceId: string; runId: string }): void {
    const handle: ClaimedRunHandle = { ...a, controller: new AbortController(), phase: 'starting', done: Promise.resolve() };
    this.runs.set(a.taskId, handle);
    handle.done = runClaimed(this.runnerDeps(), handle).finally(() => {
      this.runs.delete(a.taskId);
      this.kick();
    });
  }
}
