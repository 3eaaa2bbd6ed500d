import path from 'node:path';
import { Database } from '../../../src/db/database';
import type { RunRecord } from '../../../src/db/repositories/run-records';
import { GitManager } from '../../../src/git/git-manager';
import { EventLog } from '../../../src/orchestrator/events';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FleetWorker, type WorkerOptions } from '../../../src/orchestrator/worker';
import { createOriginRepo } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { ScriptedAdapter } from '../orchestrator/harness';

/** A worker as another process would run it: its own database connection, event log and folder. */
export interface TestWorker {
  worker: FleetWorker;
  db: Database;
  adapter: ScriptedAdapter;
  logs: string[];
  stop(): Promise<void>;
}

export interface Fleet {
  rt: TestRuntime;
  origin: string;
  workers: TestWorker[];
  addWorker(name: string, options?: Partial<WorkerOptions>): Promise<TestWorker>;
  cleanup(): Promise<void>;
}

/**
 * The app's runtime with no local agents (AQ_LOCAL_AGENTS=false), one project cloned from a
 * bare origin, and workers added on demand, each on its own connection to the same SQLite file.
 */
export async function makeFleet(project: { maxConcurrentAgents?: number } = {}): Promise<Fleet> {
  const rt = await makeTestRuntime({ AQ_LOCAL_AGENTS: 'false', AQ_AGENTS: '0' });
  const origin = await createOriginRepo(rt.home);
  await rt.exec('create_project', { name: 'web', max_concurrent_agents: project.maxConcurrentAgents ?? 6 });
  await rt.exec('add_repo', { project_id: 'web', source: 'clone', url: origin });
  const workers: TestWorker[] = [];
  return {
    rt,
    origin,
    workers,
    async addWorker(name, options = {}) {
      const db = await Database.open(rt.config.database);
      const logs: string[] = [];
      const adapter = new ScriptedAdapter();
      const worker = new FleetWorker(db, new EventLog(db, (m) => logs.push(m)), rt.config, {
        name,
        host: `${name}.example`,
        capacity: 2,
        labels: [],
        dir: path.join(rt.home, 'machines', name),
        adapters: { claude: adapter },
        git: new GitManagerTaskGit(new GitManager()),
        leaseMs: 2000,
        intervalMs: 100,
        progressIntervalMs: 20,
        log: (m) => logs.push(m),
        ...options,
      });
      let stopped = false;
      const w: TestWorker = {
        worker,
        db,
        adapter,
        logs,
        async stop() {
          if (stopped) return;
          stopped = true;
          await worker.stop();
          await db.close();
        },
      };
      workers.push(w);
      await worker.start();
      return w;
    },
    async cleanup() {
      for (const w of workers) await w.stop();
      await rt.stopDaemon();
      await rt.cleanup();
    },
  };
}

/** Pairs of runs of one task whose time spans overlap (an open run counts as still running). */
export function overlappingRuns(runs: RunRecord[]): Array<[RunRecord, RunRecord]> {
  const overlaps: Array<[RunRecord, RunRecord]> = [];
  const byTask = new Map<string, RunRecord[]>();
  for (const r of runs) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r]);
  for (const list of byTask.values()) {
    const sorted = [...list].sort((a, b) => a.claimedAt - b.claimedAt);
    for (let i = 1; i < sorted.length; i++) {
      const before = sorted[i - 1];
      if (before.endedAt === null || before.endedAt > sorted[i].claimedAt) overlaps.push([before, sorted[i]]);
    }
  }
  return overlaps;
}

/** The most runs of the project that were open at one moment, from the run records. */
export function peakConcurrency(runs: RunRecord[]): number {
  const points = runs.flatMap((r) => [
    { at: r.claimedAt, d: 1 },
    { at: r.endedAt ?? Number.MAX_SAFE_INTEGER, d: -1 },
  ]);
  points.sort((a, b) => a.at - b.at || a.d - b.d);
  let open = 0;
  let peak = 0;
  for (const p of points) {
    open += p.d;
    peak = Math.max(peak, open);
  }
  return peak;
}
