import type { Database } from '../db/database';
import type { TaskStatus } from '../db/value-sets';
import type { DaemonLease } from '../db/repositories/scheduling';
import { askDaemonToRestart, liveLeaseOwner, runningDaemon } from './daemon-restart';
import type { HookEnginePort, OrchestratorPort, TaskControlPort } from './port';

/** What one process's orchestrator port is built from (createRuntime passes them, once). */
export interface ProcessOrchestratorParts {
  db: Database;
  /** The DB-only task controls, used while no daemon runs in this process. */
  taskControl: TaskControlPort;
  /** The daemon's orchestrator while it runs in this process, else null. */
  daemon: () => TaskControlPort | null;
  /** The hook engine, which runs only in the daemon. */
  hooks: HookEnginePort;
  /** Restarts this process (the daemon): SIGTERM once the caller has replied. */
  restartThisProcess: () => void;
}

/**
 * The orchestrator port of one process. Task controls go to the daemon's Orchestrator while it
 * runs here (so a stop also ends the live run), else to the DB-only TaskControl; the hook
 * engine is reachable where hooks run; a restart restarts this process when it is the daemon
 * and otherwise asks the running daemon through the database.
 */
export class ProcessOrchestrator implements OrchestratorPort {
  constructor(private readonly parts: ProcessOrchestratorParts) {}

  private get current(): TaskControlPort {
    return this.parts.daemon() ?? this.parts.taskControl;
  }

  get hookEngine(): HookEnginePort | null {
    return this.parts.daemon() ? this.parts.hooks : null;
  }

  async daemonRunning(known?: { lease: DaemonLease | null }): Promise<boolean> {
    if (this.parts.daemon() !== null) return true;
    return (known ? liveLeaseOwner(known.lease) : await runningDaemon(this.parts.db)) !== null;
  }

  async requestRestart(reason: string): Promise<boolean> {
    if (this.parts.daemon()) {
      this.parts.restartThisProcess();
      return true;
    }
    return askDaemonToRestart(this.parts.db, reason);
  }

  stopTask(taskId: string) {
    return this.current.stopTask(taskId);
  }
  skipTask(taskId: string) {
    return this.current.skipTask(taskId);
  }
  restartTask(taskId: string) {
    return this.current.restartTask(taskId);
  }
  approveTask(taskId: string, approvedBy?: string | null) {
    return this.current.approveTask(taskId, approvedBy);
  }
  setTaskStatus(taskId: string, status: TaskStatus) {
    return this.current.setTaskStatus(taskId, status);
  }
  isPaused() {
    return this.current.isPaused();
  }
  pause() {
    return this.current.pause();
  }
  resume() {
    return this.current.resume();
  }
  runningTaskCount() {
    return this.current.runningTaskCount();
  }
}
