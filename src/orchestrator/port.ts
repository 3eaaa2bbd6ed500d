/**
 * What the command layer needs from the orchestrator. The database-only implementation
 * (task-control.ts) serves `aq` and tests; the running daemon's orchestrator implements the
 * same interface and also aborts live agent runs.
 */
export interface OrchestratorPort {
  /** Stops an IN_PROGRESS task. Resolves to an error sentence, or null on success. */
  stopTask(taskId: string): Promise<string | null>;
  /** Skips a BLOCKED or FAILED task and promotes dependants that waited only on it. */
  skipTask(taskId: string): Promise<SkipOutcome>;
  isPaused(): Promise<boolean>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Tasks running right now (IN_PROGRESS). */
  runningTaskCount(): Promise<number>;
  /** The hook engine, when hooks are enabled in this process. */
  hookEngine: HookEnginePort | null;
  /** Set by restart_daemon before the process is signalled. */
  restartRequested: boolean;
}

export type SkipOutcome =
  | { error: string }
  | { skipped: string; unblocked: Array<{ id: string; title: string }> };

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
