import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config';
import { buildSnapshot, type CycleDeps } from '../src/orchestrator/cycle';
import { schedule } from '../src/orchestrator/scheduler';
import { TaskStateMachine } from '../src/orchestrator/state-machine';
import { createRuntime, type Runtime } from '../src/runtime';
import { adminQuery } from '../test/support/postgres-databases';
import { startPostgres } from '../test/support/postgres-server';
import { percentiles, type BenchRow } from './table';

const execFileAsync = promisify(execFile);
const CLAIMERS = Number(process.env.BENCH_CLAIMERS ?? 8);
const CLAIM_MS = 10_000;
const COMPLETIONS = Number(process.env.BENCH_COMPLETIONS ?? 400);
const WORKER_CAPACITY = 2;
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
  // Fresh statistics, as autovacuum leaves them within a minute of a load this big: without them
  // PostgreSQL plans the queue's reads for an empty table (a sort of every READY task, ~10 ms).
  if (rt.db.dialect.name === 'postgresql') await rt.db.em().getConnection().execute('vacuum (analyze)');
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
    // BENCH_CLAIMER_PROFILE=<dir>: each claimer writes a V8 CPU profile there (NODE_OPTIONS refuses --cpu-prof).
    const profile = process.env.BENCH_CLAIMER_PROFILE;
    const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
    const started = performance.now();
    const outputs = await Promise.all(
      workers.map((w) =>
        execFileAsync(process.execPath, [...nodeArgs, claimer, JSON.stringify(config.database), w, String(CLAIM_MS)], {
          timeout: CLAIM_MS + 60_000,
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const results = outputs.map((o) => JSON.parse(o.stdout) as { claims: number; refused: number; ms: number; cpuMs: number });
    const window = Math.max(...results.map((r) => r.ms)) / 1000;
    const claims = results.reduce((n, r) => n + r.claims, 0);
    const refused = results.reduce((n, r) => n + r.refused, 0);
    const cpuMs = results.reduce((n, r) => n + r.cpuMs, 0);
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
        note: `${claims} claims, each with its instant run, in ${window.toFixed(1)} s (${seconds.toFixed(1)} s with process starts); ${refused} lost races; 0 tasks claimed twice (task_runs), all ${claims} COMPLETED; the claimers' own CPU: ${(cpuMs / Math.max(1, claims)).toFixed(0)} ms per claim, ${(cpuMs / 1000 / window).toFixed(2)} cores`,
      },
    ];
  } finally {
    await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * Eight real workers (bench/scripted-worker.ts: the runtime and FleetWorker, an agent that
 * completes at once) working COMPLETIONS tasks of one project to the end: completions per second,
 * from the run records (first claim to last run ended), with no task run twice.
 */
export async function completionRate(): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-fleet-done-'));
  const url = process.env.BENCH_DATABASE_URL;
  const config = loadConfig({ AQ_HOME: home, ...(url && { DATABASE_URL: url }) });
  const rt = await createRuntime(config, { log: () => undefined });
  const children: ReturnType<typeof spawn>[] = [];
  try {
    await rt.handler.execute('create_project', { name: 'web', max_concurrent_agents: CLAIMERS * WORKER_CAPACITY }, { source: 'system' });
    const workers = Array.from({ length: CLAIMERS }, (_, i) => `w${i}`);
    for (const w of workers) {
      for (let k = 0; k < WORKER_CAPACITY; k++) {
        const folder = path.join(home, 'machines', w, 'web', `ws-${k}`);
        await mkdir(folder, { recursive: true });
        await rt.db.workspaces.create({
          id: `web-${w}-ws-${k}`,
          projectId: 'web',
          name: `${w}-ws-${k}`,
          path: folder,
          sourceType: 'link',
          repoId: null,
          workerId: w,
        });
      }
    }
    const now = Date.now();
    await rt.db.transaction(async (em) => {
      for (let i = 0; i < COMPLETIONS; i++) {
        await em.execute(
          "insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval, is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at) values (?, 'web', ?, 'x', 'READY', 100, 0, 3, false, false, 0, true, false, ?, ?)",
          [`d-${i}`, `Task ${i}`, now + i, now + i],
        );
      }
    });
    const worker = path.join(__dirname, 'scripted-worker.js');
    const started = performance.now();
    for (const w of workers) {
      children.push(
        spawn(process.execPath, [worker, w, String(WORKER_CAPACITY), '30000'], {
          env: {
            PATH: process.env.PATH,
            AQ_HOME: path.join(home, 'machines', w),
            DATABASE_URL: config.databaseUrl,
            AQ_ALLOW_UNSANDBOXED: 'true',
          },
          stdio: 'ignore',
        }),
      );
    }
    const connection = rt.db.em().getConnection();
    const completed = async () =>
      Number(((await connection.execute("select count(*) as n from tasks where status = 'COMPLETED'")) as Array<{ n: number }>)[0].n);
    const deadline = Date.now() + 600_000;
    while ((await completed()) < COMPLETIONS) {
      if (Date.now() > deadline) throw new Error(`Only ${await completed()} of ${COMPLETIONS} tasks completed in 10 minutes.`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - started) / 1000;
    const [span] = (await connection.execute(
      'select min(claimed_at) as first, max(ended_at) as last, count(*) as runs, count(distinct task_id) as tasks from task_runs',
    )) as Array<{ first: number; last: number; runs: number; tasks: number }>;
    if (Number(span.runs) !== COMPLETIONS || Number(span.tasks) !== COMPLETIONS) {
      throw new Error(`${span.runs} runs for ${span.tasks} tasks: a task ran more than once.`);
    }
    const window = (Number(span.last) - Number(span.first)) / 1000;
    return [
      {
        name: `completions/s, ${CLAIMERS} worker processes × ${WORKER_CAPACITY} (${config.database.dialect})`,
        value: `${(COMPLETIONS / window).toFixed(0)} completions/s`,
        note: `${COMPLETIONS} tasks claimed, run (instant scripted agent) and completed in ${window.toFixed(1)} s from first claim to last run ended (${seconds.toFixed(1)} s with process starts); each task run once (task_runs); workers poll every 200 ms`,
      },
    ];
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}

const WAKES = 30;

/**
 * How soon an idle worker starts a task created while it idles, on PostgreSQL: one scripted
 * worker process that polls only once a minute, so the start comes from LISTEN/NOTIFY. From the
 * moment create_task is called to the run record's claim, then to `task_started`, for each of
 * WAKES tasks created one after the other (each once the previous one completed).
 */
async function wakeLatency(): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-fleet-wake-'));
  const config = loadConfig({ AQ_HOME: home, DATABASE_URL: process.env.BENCH_DATABASE_URL });
  const rt = await createRuntime(config, { log: () => undefined });
  let child: ReturnType<typeof spawn> | null = null;
  try {
    await rt.handler.execute('create_project', { name: 'web' }, { source: 'system' });
    const folder = path.join(home, 'machines', 'w0', 'web', 'ws-0');
    await mkdir(folder, { recursive: true });
    await rt.db.workspaces.create({
      id: 'web-w0',
      projectId: 'web',
      name: 'w0',
      path: folder,
      sourceType: 'link',
      repoId: null,
      workerId: 'w0',
    });
    child = spawn(process.execPath, [path.join(__dirname, 'scripted-worker.js'), 'w0', '1', '600000', '60000'], {
      env: {
        PATH: process.env.PATH,
        AQ_HOME: path.join(home, 'machines', 'w0'),
        DATABASE_URL: config.databaseUrl,
        AQ_ALLOW_UNSANDBOXED: 'true',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await new Promise<void>((resolve, reject) => {
      child?.stdout?.on('data', (d: Buffer) => d.toString().includes('is running') && resolve());
      child?.once('exit', (code) => reject(new Error(`The scripted worker exited (${code}) before it ran.`)));
    });
    const connection = rt.db.em().getConnection();
    const claimed: number[] = [];
    const started: number[] = [];
    for (let i = 0; i < WAKES; i++) {
      await new Promise((r) => setTimeout(r, 100)); // the worker's pass after the last run is over: it idles
      const at = Date.now();
      const created = await rt.handler.execute(
        'create_task',
        { project_id: 'web', title: `Wake ${i}`, description: 'x' },
        { source: 'system' },
      );
      if ('error' in created) throw new Error(created.error);
      const id = created.created;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [row] = (await connection.execute(
          `select r.claimed_at, (select min(e.created_at) from events e where e.task_id = t.id and e.type = 'task_started') as started_at, t.status
             from tasks t left join task_runs r on r.task_id = t.id where t.id = ?`,
          [id],
        )) as Array<{ claimed_at: number | null; started_at: number | null; status: string }>;
        if (row?.status === 'COMPLETED' && row.claimed_at !== null && row.started_at !== null) {
          claimed.push(Number(row.claimed_at) - at);
          started.push(Number(row.started_at) - at);
          break;
        }
        if (Date.now() > deadline) throw new Error(`Task ${i} did not start within a minute (${row?.status}).`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const c = percentiles(claimed);
    const s = percentiles(started);
    return [
      {
        name: 'wake: create_task to claim, idle worker (postgresql)',
        value: `${c.median} ms median`,
        note: `${WAKES} tasks, each created while the one worker idled (it polls once a minute: LISTEN/NOTIFY wakes it); to claim: median ${c.median} ms, worst ${Math.max(...claimed)} ms; to task_started: median ${s.median} ms, worst ${Math.max(...started)} ms`,
      },
    ];
  } finally {
    child?.kill('SIGTERM');
    if (child && child.exitCode === null) await new Promise((r) => child?.once('exit', r));
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
      provisioning: { git: { isRepo: async () => true, clone: async () => undefined, getRemoteUrl: async () => null }, retryMs: 60_000 },
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
  return [...(await claimRate()), ...(await completionRate()), await workerPass(10_000), await workerPass(100_000)];
}

/** Claims and completions per second, without the scheduling passes. */
export async function runFleetThroughputBench(): Promise<BenchRow[]> {
  return [...(await claimRate()), ...(await completionRate())];
}

/** Claims and completions per second, and how soon an idle worker wakes, on a PostgreSQL server of the bench's own (durable, as the commands suite runs it). */
export async function runFleetThroughputPostgresBench(only?: 'claims' | 'wake'): Promise<BenchRow[]> {
  const server = await startPostgres({ durable: true });
  const before = process.env.BENCH_DATABASE_URL;
  // An empty database for each measurement, as SQLite gets a fresh file.
  const fresh = async (name: string) => {
    await adminQuery(`create database ${name}`, server.url('').replace(/\/$/, ''));
    process.env.BENCH_DATABASE_URL = server.url(name);
  };
  try {
    const rows: BenchRow[] = [];
    if (only !== 'wake') {
      await fresh('aq_claims');
      rows.push(...(await claimRate()));
    }
    if (only === undefined) {
      await fresh('aq_completions');
      rows.push(...(await completionRate()));
    }
    if (only !== 'claims') {
      await fresh('aq_wake');
      rows.push(...(await wakeLatency()));
    }
    return rows;
  } finally {
    if (before === undefined) delete process.env.BENCH_DATABASE_URL;
    else process.env.BENCH_DATABASE_URL = before;
    await server.stop();
  }
}
