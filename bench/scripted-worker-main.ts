import os from 'node:os';
import type { AgentAdapter, AgentRunOutcome, AgentRunRequest } from '../src/agents/adapter';
import { loadConfig } from '../src/config';
import type { Database } from '../src/db/database';
import { createRuntime } from '../src/runtime';

const USAGE = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheCreationTokens: 0 };

/**
 * An agent that takes (almost) no time, for the fleet's contention test and bench: a task whose
 * title holds `fails:N` fails its first N attempts, `ms:N` makes each attempt last N ms (until
 * stopped); any other task completes at once.
 */
class ScriptedAgent implements AgentAdapter {
  readonly type = 'claude';
  constructor(private readonly db: Database) {}

  async run(req: AgentRunRequest): Promise<AgentRunOutcome> {
    const task = await this.db.tasks.get(req.taskId);
    const title = task?.title ?? '';
    const ms = Number(/ms:(\d+)/.exec(title)?.[1] ?? 0);
    if (ms > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        req.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const base = { summary: '', usage: USAGE, costUsd: 0, sessionId: null, resetsAt: null };
    if (req.signal.aborted) return { ...base, status: 'aborted', errorMessage: null };
    if ((task?.retryCount ?? 0) < Number(/fails:(\d+)/.exec(title)?.[1] ?? 0)) {
      return { ...base, status: 'failed', errorMessage: 'The scripted agent failed as its title asked.' };
    }
    return { ...base, status: 'completed', summary: `done ${req.taskId}`, errorMessage: null };
  }
}

/**
 * The body of `node dist/bench/scripted-worker.js NAME CAPACITY LEASE_MS [POLL_MS]` (started
 * through scripted-worker.ts): an `aq worker` (the same runtime and FleetWorker) whose agent is
 * ScriptedAgent, on DATABASE_URL, until SIGTERM.
 */
async function main(): Promise<void> {
  const [name, capacity, leaseMs, intervalMs] = [
    process.argv[2],
    Number(process.argv[3] ?? 2),
    Number(process.argv[4] ?? 30_000),
    Number(process.argv[5] ?? 200),
  ];
  const config = loadConfig(process.env);
  const log = (message: string) => process.stderr.write(`[worker ${name}] ${message}\n`);
  const runtime = await createRuntime(config, { log });
  const worker = await runtime.startWorker({
    name,
    host: os.hostname(),
    capacity,
    labels: [],
    dir: config.workspaceDir,
    leaseMs,
    intervalMs,
    progressIntervalMs: 200,
    adapters: { claude: new ScriptedAgent(runtime.db) },
  });
  process.stdout.write(`Worker ${worker.name} is running.\n`);
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  await runtime.close();
}

main().catch((err) => {
  process.stderr.write(`scripted worker failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
