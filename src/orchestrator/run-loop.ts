import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database';
import { systemClock, type Clock } from '../util/clock';
import { abortOrphanedRuns, runClaimed, type ClaimedRunHandle } from './claimed-run';
import { announceFailovers, buildSnapshot, promoteReady, resumePaused, type CycleDeps, type CycleReport } from './cycle';
import type { EventLog } from './events';
import { reapLapsedClaims } from './recovery';
import { reconcile } from './reconciler';
import { schedule, type SchedulerSnapshot } from './scheduler';
import type { TaskStateMachine } from './state-machine';
import { claimLaunch } from './task-moves';
import type { RunnerDeps } from './task-runner';
import { errorMessage } from '../util/error-message';

/** How runs are made, the same in the daemon and a worker. */
export interface RunOptions {
  /** The time of the loop's waits (default: the system clock); tests pass a ManualClock and move it. */
  clock?: Clock;
  /** Only the time of day (a test that sets the date); waits stay on `clock`. */
  now?: () => Date;
  git: RunnerDeps['git'];
  adapters: RunnerDeps['adapters'];
  chatProvider?: RunnerDeps['chatProvider'];
  progressIntervalMs?: number;
  rateLimitBackoffMs?: number;
}

export function runnerDeps(
  base: Pick<RunnerDeps, 'db' | 'events' | 'config' | 'machine' | 'log' | 'clock'>,
  options: RunOptions,
): RunnerDeps {
  return {
    ...base,
    git: options.git,
    adapters: options.adapters,
    chatProvider: options.chatProvider,
    progressIntervalMs: options.progressIntervalMs ?? 2000,
    rateLimitBackoffMs: options.rateLimitBackoffMs ?? 60_000,
  };
}

/** The options' clock, with its time of day replaced when `now` is given. */
export function loopClock(options: Pick<RunOptions, 'clock' | 'now'>): Clock {
  const base = options.clock ?? systemClock;
  const now = options.now;
  return now ? { now, sleep: (ms, signal) => base.sleep(ms, signal), every: (ms, fn) => base.every(ms, fn) } : base;
}

/** What a run loop is built on: the same for the daemon and a worker. */
export interface RunLoopDeps {
  db: Database;
  events: EventLog;
  machine: TaskStateMachine;
  /** What each run gets (the loop fences its machine on the run's record). */
  runner: RunnerDeps;
  /** The scheduling pass's view: the app's agents, or one worker's agents, folder and projects. */
  cycle: () => CycleDeps;
  /** The time of intervals, heartbeats, leases and the reconciler's grace. */
  clock: Clock;
  log: (message: string) => void;
}

/** Where the daemon and a worker differ, said once. */
export interface RunLoopRole {
  /** Who speaks in its log lines ("Worker w1", "Orchestrator"). */
  logName: string;
  /**
   * Whose claims these are: null for the daemon (its runs carry no worker and no lease); a
   * worker's claims carry its name and a lease it renews, and only its own are reconciled.
   */
  claimant: { workerId: string; leaseMs: number } | null;
  /** A task may sit unmoved this long before the reconciler repairs it; it runs twice per grace. */
  reconcileGraceMs: number;
  /** How often a pass runs when nothing asks for one. */
  intervalMs: number;
  /** The renewal of this process's claims and liveness (a worker's heartbeat), on its own timer. */
  heartbeat?: { intervalMs: number; beat: () => Promise<void> };
  /** Runs first in each pass; false skips the pass (a daemon that does not hold the scheduling lease). */
  beforePass?: () => Promise<boolean>;
  /** Whether this pass may launch (the queue is not paused; the daemon runs agents itself). */
  mayLaunch: () => Promise<boolean>;
  /** After the launches of a pass (the daemon tells people which tasks wait on a workspace). */
  afterLaunches?: (deps: CycleDeps, snapshot: SchedulerSnapshot, report: CycleReport) => Promise<void>;
  /** At the end of every pass this process makes (the hook engine's periodic check). */
  afterPass?: () => Promise<void>;
  /**
   * Whether a pass is also asked for by the database when a task becomes READY or frees capacity
   * (PostgreSQL's LISTEN/NOTIFY, on a connection of its own); the interval stays the fallback.
   */
  wakeOnWork?: boolean;
}

/**
 * The loop that claims READY tasks and runs them, shared by the daemon and `aq worker`: each
 * pass ends runs whose task moved behind their back, puts lapsed claims back, repairs what
 * nothing moves (now and then), resumes and promotes, schedules, claims each launch atomically
 * and runs it fenced on its run record. A pass is asked for by any event but progress, by the
 * end of a run and by the interval; passes never overlap (a request during one makes one more).
 */
export class RunLoop {
  private readonly runs = new Map<string, ClaimedRunHandle>();
  private timers: Array<() => void> = [];
  private unsubscribe: (() => void) | null = null;
  private notifier: { close(): Promise<void> } | null = null;
  /** The pass under way, and at most one queued behind it: any number of asks share the queued one. */
  private current: Promise<CycleReport | null> | null = null;
  private queued: Promise<CycleReport | null> | null = null;
  private stopped = true;
  private lastReconcile = 0;

  constructor(
    private readonly deps: RunLoopDeps,
    private readonly role: RunLoopRole,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Task ids with a live agent run in this process. */
  get runningTaskIds(): string[] {
    return [...this.runs.keys()];
  }

  run(taskId: string): ClaimedRunHandle | undefined {
    return this.runs.get(taskId);
  }

  /** The live runs of this process (the worker's heartbeat refreshes their conflict radar). */
  liveRuns(): Iterable<ClaimedRunHandle> {
    return this.runs.values();
  }

  /** Listens for events and notices, and starts the timers; the first pass is the caller's to run or kick. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.deps.events.subscribe((event) => {
      if (event.type !== 'task_progress') this.kick();
    });
    const { clock } = this.deps;
    // The interval is the fallback poll: a tick that finds a pass under way is already served by it.
    // (Queuing one per tick kept a loaded machine's passes running back to back, never idle.)
    this.timers = [clock.every(this.role.intervalMs, () => !this.current && this.kick())];
    const heartbeat = this.role.heartbeat;
    if (heartbeat) this.timers.push(clock.every(heartbeat.intervalMs, () => void heartbeat.beat()));
    if (this.role.wakeOnWork) {
      this.notifier = await this.deps.db
        .listenForWork(() => this.kick(), this.deps.log)
        .catch((err) => {
          this.deps.log(`${this.role.logName} could not listen for new tasks (${errorMessage(err)}); it polls instead.`);
          return null;
        });
    }
  }

  /** Stops passes and timers, waits for the pass under way, ends live runs and waits for them. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const cancel of this.timers) cancel();
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.notifier?.close();
    this.notifier = null;
    await (this.queued ?? this.current);
    this.abortAll();
    await this.idle();
  }

  abortAll(): void {
    for (const run of this.runs.values()) run.controller.abort();
  }

  /** Resolves when no agent run is live in this process. */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }

  /** Asks for a pass soon (coalesced with one already running). */
  kick(): void {
    if (this.stopped) return;
    void this.runCycle();
  }

  /**
   * One full pass that starts after this call: the current pass when none is under way, else the
   * one queued behind it (shared by every ask made meanwhile). Bounded: a caller waits for at most
   * the pass under way and its own, however many kicks arrive. Never throws: errors are logged.
   */
  runCycle(): Promise<CycleReport | null> {
    if (this.queued) return this.queued;
    if (!this.current) return this.beginPass();
    this.queued = this.current.then(() => {
      this.queued = null;
      return this.stopped ? null : this.beginPass();
    });
    return this.queued;
  }

  private beginPass(): Promise<CycleReport | null> {
    const pass: Promise<CycleReport | null> = this.passOnce()
      .catch((err) => {
        this.deps.log(`${this.role.logName} cycle failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        return null;
      })
      .finally(() => {
        if (this.current === pass) this.current = null;
      });
    this.current = pass;
    return pass;
  }

  private async passOnce(): Promise<CycleReport> {
    const { db, events, machine, clock, log } = this.deps;
    const report: CycleReport = { resumed: [], promoted: [], assignments: [], launched: [], blocked: [] };
    if (this.role.beforePass && !(await this.role.beforePass())) return report;
    await abortOrphanedRuns(db, this.runs.values(), log);
    await reapLapsedClaims(db, events, machine, clock.now());
    await this.reconcileNowAndThen();
    const deps = this.deps.cycle();
    report.resumed = await resumePaused(deps);
    report.promoted = await promoteReady(deps);
    if (!this.stopped && (await this.role.mayLaunch())) {
      const live = [...this.runs.values()];
      const snapshot = await buildSnapshot(deps, {
        globalPaused: false,
        excludeWorkspaceIds: new Set(live.map((r) => r.workspaceId)),
        excludeAgentIds: new Set(live.map((r) => r.agentId)),
        blocked: report.blocked,
      });
      report.assignments = schedule(snapshot);
      await this.claimAndLaunch(report);
      await announceFailovers(deps, report.launched);
      await this.role.afterLaunches?.(deps, snapshot, report);
    }
    if (this.role.afterPass) {
      await this.role.afterPass().catch((err) => log(`Tick callback failed: ${errorMessage(err)}`));
    }
    return report;
  }

  private async claimAndLaunch(report: CycleReport): Promise<void> {
    const claimant = this.role.claimant;
    for (const a of report.assignments) {
      if (this.stopped) return;
      if (this.runs.has(a.taskId)) continue; // its last run here is still winding down
      const runId = randomUUID();
      const refused = await claimLaunch(this.deps.db, this.deps.machine, {
        ...a,
        runId,
        ...(claimant ? { workerId: claimant.workerId, leaseMs: claimant.leaseMs } : {}),
        clock: () => this.deps.clock.now(),
      });
      if (refused) {
        this.deps.log(`${this.role.logName}: launch of ${a.taskId} skipped: ${refused.replace(/_/g, ' ')}.`);
        continue;
      }
      this.launch({ taskId: a.taskId, agentId: a.agentId, workspaceId: a.workspaceId, runId });
      report.launched.push(a);
    }
  }

  /** The reconciler's pass, at most twice per grace period: what it repairs has waited that long already. */
  private async reconcileNowAndThen(): Promise<void> {
    const now = this.deps.clock.now();
    const graceMs = this.role.reconcileGraceMs;
    if (now.getTime() - this.lastReconcile < graceMs / 2) return;
    this.lastReconcile = now.getTime();
    const repairs = await reconcile(this.deps.db, this.deps.events, this.deps.machine, {
      workerId: this.role.claimant?.workerId ?? null,
      liveTaskIds: this.runningTaskIds,
      graceMs,
      now,
    });
    for (const r of repairs) this.deps.log(`${this.role.logName} repaired ${r.taskId} (${r.repair}): ${r.reason}.`);
  }

  private launch(a: { taskId: string; agentId: string; workspaceId: string; runId: string }): void {
    const handle: ClaimedRunHandle = { ...a, controller: new AbortController(), phase: 'starting', done: Promise.resolve() };
    this.runs.set(a.taskId, handle);
    handle.done = runClaimed(this.deps.runner, handle).finally(() => {
      this.runs.delete(a.taskId);
      this.kick();
    });
  }
}
