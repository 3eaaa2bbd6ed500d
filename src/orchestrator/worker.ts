import type { AppConfig } from '../config';
import type { AgentAdapter } from '../agents/adapter';
import type { Database } from '../db/database';
import { PAUSED_KEY } from '../db/repositories/scheduling';
import type { ChatProvider } from '../model/provider';
import { GitManager } from '../git/git-manager';
import { refreshRunRadars } from './conflict-radar';
import type { TaskGit } from './completion';
import type { CycleDeps } from './cycle';
import type { EventLog } from './events';
import { recoverStaleState } from './recovery';
import { loopClock, RunLoop, runnerDeps } from './run-loop';
import { TrainDriver } from './landing';
import { TaskStateMachine } from './state-machine';
import { forgetWorkersFailures, type ProvisioningGit } from './workspace-provisioning';
import type { Clock } from '../util/clock';
import { gitCredentialsDir } from '../util/app-home-files';
import { errorMessage } from '../util/error-message';

/** A worker silent this long (stopped, or gone without a word) is forgotten when another one starts. */
export const FORGET_SILENT_WORKERS_AFTER_MS = 24 * 60 * 60 * 1000;

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
  /**
   * Also wake on new READY tasks through the database's notifications (PostgreSQL's
   * LISTEN/NOTIFY; default true). Without it the worker finds work on its interval only, as
   * behind a connection pooler that cannot pass notifications on.
   */
  wakeOnWork?: boolean;
  progressIntervalMs?: number;
  rateLimitBackoffMs?: number;
  windowMs?: number;
  /** The time of leases, heartbeats, intervals and backoffs (default: the system clock); tests pass a ManualClock and move it. */
  clock?: Clock;
  /** The time of day only (leases, heartbeats and the reconciler's grace); waits stay on `clock`. */
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * An `aq worker`: runs agents on this machine for the queue in the shared database. It
 * registers and heartbeats (renewing the leases of its claims), and runs the same loop as the
 * app (its own agents and workspaces, the fleet's counts; claims carry its name and a lease).
 * Everything it does reaches Slack through the events table.
 */
export class FleetWorker {
  private readonly loop: RunLoop;
  private readonly machine: TaskStateMachine;
  /** Lands the merge trains beside the loop (landing.ts). */
  private readonly trains: TrainDriver;
  private readonly log: (message: string) => void;
  private readonly leaseMs: number;
  private readonly workspaceGit: ProvisioningGit;
  private lastBeat = 0;
  private readonly heartbeatMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly db: Database,
    private readonly events: EventLog,
    config: AppConfig,
    private readonly options: WorkerOptions,
  ) {
    this.log = options.log ?? ((m) => console.error(m));
    this.machine = new TaskStateMachine(db, this.log);
    this.leaseMs = options.leaseMs ?? 30_000;
    // A landing lock lapses with its holder's lease, like the worker's claims: a killed worker's landing is taken over as soon.
    this.trains = new TrainDriver({
      db,
      events,
      machine: this.machine,
      git: options.git,
      config,
      log: this.log,
      leaseMs: this.leaseMs,
      workerId: options.name,
    });
    // A third of the lease: two renewals can be missed before a live worker's claim lapses.
    this.heartbeatMs = options.heartbeatMs ?? Math.max(100, Math.floor(this.leaseMs / 3));
    const clock = loopClock(options);
    this.now = () => clock.now();
    this.workspaceGit = options.workspaceGit ?? new GitManager({ credentialsDir: gitCredentialsDir(config.home) });
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
        logName: `Worker ${options.name}`,
        claimant: { workerId: options.name, leaseMs: this.leaseMs },
        // What it repairs has waited a lease already.
        reconcileGraceMs: this.leaseMs,
        intervalMs: options.intervalMs ?? 1000,
        heartbeat: { intervalMs: this.heartbeatMs, beat: () => this.heartbeat() },
        mayLaunch: async () => !(await this.db.state.get(PAUSED_KEY, false)),
        // The merge trains land beside the loop; each pass asks them to look.
        afterPass: async () => this.trains.kick(),
        wakeOnWork: options.wakeOnWork ?? true,
      },
    );
  }

  get name(): string {
    return this.options.name;
  }

  /** Task ids this worker runs right now. */
  get runningTaskIds(): string[] {
    return this.loop.runningTaskIds;
  }

  async start(): Promise<void> {
    if (!this.loop.isStopped) return;
    const { name, host, capacity } = this.options;
    const now = this.now().getTime();
    // Each start tidies the fleet: machines silent for a day (replaced containers, retired hosts) are dropped.
    const forgotten = await this.db.workers.forgetSilentSince(now - FORGET_SILENT_WORKERS_AFTER_MS);
    if (forgotten.length > 0) {
      await forgetWorkersFailures(this.db, forgotten);
      const named = forgotten.slice(0, 5).join(', ') + (forgotten.length > 5 ? ` and ${forgotten.length - 5} more` : '');
      this.log(`Worker ${name}: forgot ${forgotten.length} worker(s) silent for a day: ${named}.`);
    }
    await this.register(now);
    this.lastBeat = now;
    // What this worker's previous life (same name) left behind is its own to put back.
    const recovered = await recoverStaleState(this.db, this.events, this.machine, [], name);
    if (recovered.tasks.length > 0) this.log(`Worker ${name}: ${recovered.tasks.length} task(s) of a previous run back to READY.`);
    await this.loop.start();
    this.log(`Worker ${name} on ${host} started: ${capacity} agent(s), workspaces in ${this.options.dir}.`);
    this.loop.kick();
  }

  /** Its row in the workers table, and its agents. */
  private async register(now: number): Promise<void> {
    const { name, host, capacity, labels } = this.options;
    await this.db.workers.register({ name, host, capacity, labels, leaseMs: this.leaseMs }, now);
    await this.db.workers.ensureAgents(name, capacity, new Date(now));
  }

  /** Its row was removed while it ran (forgotten as silent, or by hand): it registers again, with its agents. */
  private async registerAgain(now: number): Promise<void> {
    await this.register(now);
    this.log(`Worker ${this.options.name}: its row was gone from the workers table; registered again.`);
  }

  /** Stops taking work, ends live runs (their tasks go back to READY) and says so in the table. */
  async stop(): Promise<void> {
    if (this.loop.isStopped) return;
    await this.loop.stop();
    await this.trains.idle();
    await this.db.workers.markStopped(this.options.name, this.now().getTime()).catch(() => undefined);
  }

  async idle(): Promise<void> {
    await this.loop.idle();
  }

  kick(): void {
    this.loop.kick();
  }

  /** One pass now (or the end of the one under way): tests drive the worker one pass at a time. */
  async runCycle(): Promise<void> {
    await this.loop.runCycle();
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
      if (!(await this.db.workers.heartbeat(this.options.name, now))) await this.registerAgain(now);
      const { lapsed } = await this.db.runRecords.renewLeases(this.options.name, now, now + this.leaseMs);
      this.lastBeat = now;
      for (const taskId of lapsed) {
        const run = this.loop.run(taskId);
        if (!run || run.controller.signal.aborted) continue;
        this.log(
          `Worker ${this.options.name}: the claim on ${taskId} lapsed before it was renewed; ending its run so another worker can take it.`,
        );
        run.controller.abort();
      }
      await refreshRunRadars(this.loop.liveRuns());
    } catch (err) {
      this.log(`Worker heartbeat failed: ${errorMessage(err)}`);
      if (now - this.lastBeat > this.leaseMs) this.loop.abortAll();
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
}
