import type { AppConfig } from '../config';
import type { ChatProvider } from '../model/provider';
import type { Database } from '../db/database';
import type { AgentAdapter } from '../agents/adapter';
import type { GitManager } from '../git/git-manager';
import type { Clock } from '../util/clock';
import type { TaskGit } from './completion';
import type { TaskRadar } from './conflict-radar';
import type { EventLog } from './events';
import type { TaskStateMachine } from './state-machine';

/** What one task run needs: the same for the daemon and a worker (run-loop.ts builds it). */
export interface RunnerDeps {
  db: Database;
  events: EventLog;
  config: AppConfig;
  machine: TaskStateMachine;
  git: TaskGit;
  adapters: Record<string, AgentAdapter>;
  chatProvider?: ChatProvider | null;
  progressIntervalMs: number;
  rateLimitBackoffMs: number;
  log: (message: string) => void;
  /** The time of backoffs and of how long a request waits for a person (default: the system clock). */
  clock?: Clock;
  /** Git for the conflict radar's reads (default: a GitManager of its own). */
  radarGit?: GitManager;
}

/** One live run, as the loop that launched it sees it. */
export interface RunHandle {
  taskId: string;
  agentId: string;
  workspaceId: string;
  /** The run record (task_runs.id) the launch claimed; the deps' machine is fenced on it. */
  runId?: string;
  controller: AbortController;
  /** 'running' while the agent works; 'finishing' while the runner itself moves the task on. */
  phase: 'starting' | 'running' | 'finishing';
  done: Promise<void>;
  /** The run's conflict radar, once its workspace is on the task's branch (null outside git). */
  radar?: TaskRadar | null;
}
