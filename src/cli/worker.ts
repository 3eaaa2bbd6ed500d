import os from 'node:os';
import type { Command } from 'commander';
import { loadConfig, loadDotEnv } from '../config';
import { CliExit, type CliIo } from './io';

/** What `aq worker` reads from its options, falling back to the environment. */
interface WorkerFlags {
  name?: string;
  capacity?: string;
  labels?: string;
  leaseSeconds?: string;
}

function positive(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n >= min)) {
    throw new CliExit(2, `${name} must be a number of at least ${min} (got ${JSON.stringify(value)}).`);
  }
  return n;
}

/** A worker name people can read in Slack: letters, digits, dots, dashes and underscores. */
function workerName(value: string): string {
  const name = value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(name)) {
    throw new CliExit(2, `--name must be 1 to 63 letters, digits, dots, dashes or underscores (got ${JSON.stringify(value)}).`);
  }
  return name;
}

/**
 * `aq worker`: runs agents on this machine for the queue in DATABASE_URL until SIGTERM or
 * SIGINT, then ends its runs (their tasks go back to READY) and stops.
 */
export function registerWorkerCommand(program: Command, io: CliIo, env: NodeJS.ProcessEnv): void {
  program
    .command('worker')
    .description(
      'Run agents on this machine for the shared queue (DATABASE_URL) until stopped: registers as a worker, claims READY tasks, keeps its own workspaces in AQ_WORKSPACE_DIR.',
    )
    .option('--name <name>', 'unique, stable worker name (AQ_WORKER_NAME; default: the host name)')
    .option('--capacity <n>', 'agents run at once (AQ_WORKER_CAPACITY; default 2)')
    .option('--labels <list>', 'what it can reach, comma-separated; project:<id> limits it to those projects (AQ_WORKER_LABELS)')
    .option('--lease-seconds <s>', 'a claim lapses this long after the last heartbeat (AQ_WORKER_LEASE_SECONDS; default 30)')
    .action(async (flags: WorkerFlags) => {
      if (env === process.env) loadDotEnv();
      const config = loadConfig(env);
      const name = workerName(flags.name ?? env.AQ_WORKER_NAME ?? os.hostname().split('.')[0]);
      const capacity = Math.floor(positive('--capacity', flags.capacity ?? env.AQ_WORKER_CAPACITY ?? '2', 1));
      const leaseMs = positive('--lease-seconds', flags.leaseSeconds ?? env.AQ_WORKER_LEASE_SECONDS ?? '30', 1) * 1000;
      const labels = (flags.labels ?? env.AQ_WORKER_LABELS ?? '')
        .split(/[\s,]+/)
        .map((l) => l.trim())
        .filter(Boolean);
      const log = (message: string) => io.stderr(`[worker ${name}] ${message}`);
      const { createRuntime } = await import('../runtime');
      const runtime = await createRuntime(config, { log });
      try {
        await runtime.startWorker({ name, host: os.hostname(), capacity, labels, leaseMs, dir: config.workspaceDir });
        io.stdout(`Worker ${name} is running (${capacity} agent(s)). Stop with Ctrl-C.`);
        await new Promise<void>((resolve) => {
          process.once('SIGTERM', () => resolve());
          process.once('SIGINT', () => resolve());
        });
        io.stdout(`Worker ${name} is stopping: its running tasks go back to the queue.`);
      } finally {
        await runtime.close();
      }
    });
}
