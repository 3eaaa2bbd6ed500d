import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config';
import { buildSnapshot, type CycleDeps } from '../src/orchestrator/cycle';
import { schedule } from '../src/orchestrator/scheduler';
import { TaskStateMachine } from '../src/orchestrator/state-machine';
import { createRuntime, type Runtime } from '../src/runtime';
import { percentiles, type BenchRow } from './table';

const execFileAsync = promisify(execFile);
const CLAIMERS = Number(process.env.BENCH_CLAIMERS ?? 8);
const CLAIM_MS = 10_000;
const PROJECTS = 50;

/** `count` READY tasks over PROJECTS projects (cap 100 each), in batches. */
async function seedTasks(rt: Runtime, count: number): Promise<void> {
  const now = Date.now();
  await rt.db.transaction(async (em) => {
    for (let p = 0; p < PROJECTS; p++) {
      await em.execute(
        "insert into projects (id, name, status, credit_weight, max_concurrent_agents, workspace, created_at, updated_at) values (?, ?, 'ACTIVE', ?, 100, ?, ?, ?)",
        [`fleet-${p}`, `fleet-${p}`, 1 + (p % 3), `/tmp/fleet-${p}`, now, now],
      );
    }
    const columns =
      'id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval, is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at';
    for (let start = 0; start < count; start += 500) {
      const rows: string[] = [];
      const params: unknown[] = [];
      for (let i = start; i < Math.min(count, start + 500); i++) {
        rows.push("(?, ?, ?, 'x', 'READY', ?, 0, 3, false, false, 0, true, false, ?, ?)");
        const at = now - (count - i) * 10;
        params.push(`f-${i}`, `fleet-${i % PROJECTS}`, `Task ${i}`, i % 200, at, at);
      }
      await em.execute(`insert into tasks (${columns}) values ${rows.join(', ')}`, params);
    }
  });
}

/** A worker's agents and one workspace per project for each of `workers`. */
async function seedWorkers(rt: Runtime, workers: string[], agentsEach: number, workspacesPerProject: number): Promise<void> {
  const now = Date.now();
  await rt.db.transaction(async (em) => {
    for (const w of workers) {
      for (let a = 0; a < agentsEach; a++) {
        await em.execute("insert into agents (id, name, type, state, worker_id, created_at) values (?, ?, 'claude', 'IDLE', ?, ?)", [
          agentsEach === 1 ? `${w}-agent` : `${w}-agent-${a}`,
          `${w} agent`,
          w,
          now,
        ]);
      }
      for (let p = 0; p < (workspacesPerProject ? PROJECTS : 1); p++) {
        for (let k = 0; k < Math.max(1, workspacesPerProject); k++) {
          const id = workspacesPerProject ? `${w}-ws-${p}-${k}` : `${w}-ws`;
          await em.execute(
            "insert into workspaces (id, project_id, name, path, source_type, worker_id, created_at) values (?, ?, ?, ?, 'clone', ?, ?)",
            [id, `fleet-${p}`, id, `/tmp/${id}`, w, now],
          );
        }
      }
    }
  });
}

/** Eight claimer processes against one database: claims per second, and no task claimed twice. */
export async function claimRate(): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-fleet-bench-'));
  const url = process.env.BENCH_DATABASE_URL;
  const config = loadConfig({ AQ_HOME: home, ...(url && { DATABASE_URL: url }) });
  const rt = await createRuntime(config, { log: () => undefined });
  try {
    await seedTasks(rt, 20_000);
    const workers = Array.from({ length: CLAIMERS }, (_, i) => `c${i}`);
    await seedWorkers(rt, workers, 1, 0);
    const claimer = path.join(__dirname, 'claimer.js');
    const started = performance.now();
    const outputs = await Promise.all(
      workers.map((w) =>
        execFileAsync(process.execPath, [claimer, JSON.stringify(config.database), w, String(CLAIM_MS)], { timeout: CLAIM_MS + 60_000 }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const results = outputs.map((o) => JSON.parse(o.stdout) as { claims: number; refused: number; ms: number });
    const window = Math.max(...results.map((r) => r.ms)) / 1000;
    const claims = results.reduce((n, r) => n + r.claims, 0);
    const refused = results.reduce((n, r) => n + r.refused, 0);
    const connection = rt.db.em().getConnection();
    const doubles = (await connection.execute('select task_id from task_runs group by task_id having count(*) > 1')) as unknown[];
    const completed = (await connection.execute("select count(*) as n from tasks where status = 'COMPLETED'")) as Array<{ n: number }>;
    if (doubles.length > 0 || Number(completed[0].n) !== claims) {
      throw new Error(`Double claims: ${doubles.length} task(s) claimed twice; ${completed[0].n} completed for ${claims} claims.`);
    }
    return [
      {
        name: `claims/s, ${CLAIMERS} claimer processes (${config.database.dialect})`,
        value: `${(claims / window).toFixed(0)} claims/s`,
        note: `${claims} claims, each with its instant run, in ${window.toFixed(1)} s (${seconds.toFixed(1)} s with process starts); ${refused} lost races; 0 tasks claimed twice (task_runs), all ${claims} COMPLETED`,
      },
    ];
  } finally {
    await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** A worker's scheduling pass (its own agents and workspaces, the fleet's counts) at `ready` READY tasks. */
async function workerPass(ready: number): Promise<BenchRow> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-fleet-pass-'));
  const url = process.env.BENCH_DATABASE_URL;
  const rt = await createRuntime(loadConfig({ AQ_HOME: home, ...(url && { DATABASE_URL: url }) }), { log: () => undefined });
  try {
    await seedTasks(rt, ready);
    await seedWorkers(rt, ['w0', 'w1', 'w2'], 8, 1);
    const deps: CycleDeps = {
      db: rt.db,
      events: rt.events,
      machine: new TaskStateMachine(rt.db, () => undefined),
      git: { isRepo: async () => true },
      provisioning: { git: { isRepo: async () => true, clone: async () => undefined }, retryMs: 60_000 },
      now: () => new Date(),
      windowMs: 24 * 3600_000,
      log: () => undefined,
      worker: { id: 'w1', dir: home, projects: null },
    };
    const pass = async () => schedule(await buildSnapshot(deps, { globalPaused: false, excludeWorkspaceIds: new Set(), blocked: [] }));
    const assigned = (await pass()).length;
    for (let i = 0; i < 3; i++) await pass();
    const samples: number[] = [];
    for (let i = 0; i < 30; i++) {
      const start = performance.now();
      await pass();
      samples.push(performance.now() - start);
    }
    const t = percentiles(samples);
    return {
      name: `worker scheduling pass, ${ready / 1000}k READY (${rt.config.database.dialect})`,
      value: `${t.median.toFixed(1)} ms median`,
      note: `p99 ${t.p99.toFixed(1)} ms; ${PROJECTS} projects, 3 workers × 8 agents, ${assigned} assignments for one worker`,
    };
  } finally {
    await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** The fleet: claim throughput across processes, and a worker's pass at large task counts. */
export async function runFleetBench(): Promise<BenchRow[]> {
  return [...(await claimRate()), await workerPass(10_000), await workerPass(100_000)];
}
