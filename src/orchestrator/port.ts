import type { TaskStatus } from '../db/value-sets';
import type { DaemonLease } from '../db/repositories/scheduling';

/**
 * The task controls every process shares. The database-only implementation (task-control.ts)
 * serves `aq` and tests; the running daemon's orchestrator also aborts live agent runs.
 */
export interface TaskControlPort {
  /** Stops an IN_PROGRESS task (it becomes BLOCKED). Task operations throw TaskOperationError. */
  stopTask(taskId: string): Promise<void>;
  /** Skips a BLOCKED or FAILED task and promotes dependants that waited only on it. */
  skipTask(taskId: string): Promise<SkipResult>;
  /** Puts a task that is not running back in the queue (READY), its retry count reset. */
  restartTask(taskId: string): Promise<RestartResult>;
  /** Completes an AWAITING_APPROVAL task and promotes its dependants. */
  approveTask(taskId: string, approvedBy?: string | null): Promise<{ title: string }>;
  /** Forces any status (a repair); a move the state machine does not allow is reported as such. */
  setTaskStatus(taskId: string, status: TaskStatus): Promise<ForcedStatus>;
  isPaused(): Promise<boolean>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Tasks running right now (IN_PROGRESS). */
  runningTaskCount(): Promise<number>;
}

/**
 * What the command layer needs from the orchestrator: the task controls, plus what depends on
 * whether this process is the daemon (process-orchestrator.ts wires it once per process).
 */
export interface OrchestratorPort extends TaskControlPort {
  /** The hook engine, when hooks run in this process (the daemon's); null elsewhere. */
  readonly hookEngine: HookEnginePort | null;
  /**
   * Whether a daemon runs: this process, or another one holding the scheduling lease. A caller
   * that has read the lease already (get_status, in its one summary statement) passes it.
   */
  daemonRunning(known?: { lease: DaemonLease | null }): Promise<boolean>;
  /**
   * Restarts the daemon: this process (SIGTERM once the caller has replied) when it is the
   * daemon, otherwise a request the running daemon takes through the database. False when no
   * daemon is running.
   */
  requestRestart(reason: string): Promise<boolean>;
}

export interface SkipResult {
  skipped: string;
  unblocked: Array<{ id: string; title: string }>;
}

export interface RestartResult {
  title: string;
  previousStatus: TaskStatus;
}

export interface ForcedStatus {
  title: string;
  oldStatus: TaskStatus;
  newStatus: TaskStatus;
  /** No event of the state machine makes this move. */
  outsideTable: boolean;
}

export interface HookEnginePort {
  /** Fires a hook now, bypassing its cooldown; the run continues in the background. */
  fire(hookId: string): Promise<string | null>;
}

/** Process-level effects of restart_daemon and update_and_restart, injectable for tests. */
export interface ProcessController {
  /** Sends a signal to the current process (SIGTERM for a restart). */
  signalSelf(signal: NodeJS.Signals): void;
  /** Runs a program off the event loop; never through a shell. */
  run(file: string, args: string[], options: { cwd: string; timeoutMs: number }): Promise<{ code: number; stdout: string; stderr: string }>;
}
