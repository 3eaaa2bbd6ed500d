import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { createRuntime, type Runtime } from '../src/runtime';
import { seedProjects, seedTasks } from './seed';
import { percentiles, type BenchRow } from './table';

async function measure(iterations: number, work: (i: number) => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < 10; i++) await work(i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await work(i);
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

function row(name: string, size: number, r: { median: number; p99: number }): BenchRow {
  return { name: `${name} @ ${size / 1000}k tasks`, value: `${r.median.toFixed(2)} ms median`, note: `p99 ${r.p99.toFixed(2)} ms` };
}

async function failIfError(result: Promise<Record<string, unknown>>): Promise<void> {
  const value = await result;
  if ('error' in value) throw new Error(String(value.error));
}

export interface CommandsBenchOptions {
  /** Task counts the one database is grown to, in order (default 1k, 10k, 100k). */
  sizes?: number[];
  /** Timed calls per command and size, after 10 warm-up calls (default 200). */
  iterations?: number;
}

/** Puts `count` tasks IN_PROGRESS with a BUSY agent each, so get_status has live work to join. */
async function startSomeWork(db: Runtime['db'], count: number): Promise<void> {
  await db.transaction(async (em) => {
    for (let i = 0; i < count; i++) {
      const agent = `agent-${i}`;
      const task = `bench-task-${i * 9}`; // READY in the seed's status cycle
      await em.execute("update tasks set status = 'IN_PROGRESS', assigned_agent = ? where id = ?", [agent, task]);
      await em.execute("update agents set state = 'BUSY', current_task = ? where id = ?", [task, agent]);
    }
  });
}

/**
 * Command latency through execute() (validation, SQL, result mapping) on one database grown to
 * 1k, 10k and 100k tasks over 50 projects, with 20 agents of which 10 are working.
 */
export async function runCommandsBench(options: CommandsBenchOptions = {}): Promise<BenchRow[]> {
  const sizes = options.sizes ?? [1_000, 10_000, 100_000];
  const iterations = options.iterations ?? 200;
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-'));
  let runtime: Runtime | null = null;
  try {
    runtime = await createRuntime(loadConfig({ AQ_HOME: home }), { log: () => undefined });
    const rt = runtime;
    const run = (name: string, args: Record<string, unknown> = {}) => failIfError(rt.handler.execute(name, args, { source: 'cli' }));
    const projects = await seedProjects(rt.db, 50, rt.config.workspaceDir);
    const rows: BenchRow[] = [];
    let seeded = 0;
    for (const size of sizes) {
      await seedTasks(rt.db, projects, size - seeded, seeded);
      if (seeded === 0) await startSomeWork(rt.db, Math.min(10, Math.floor(size / 9)));
      seeded = size;
      rows.push(row('get_status', size, await measure(iterations, () => run('get_status'))));
      rows.push(row('list_tasks (all)', size, await measure(iterations, () => run('list_tasks'))));
      rows.push(row('list_tasks (project)', size, await measure(iterations, (i) => run('list_tasks', { project_id: projects[i % 50] }))));
      rows.push(row('list_tasks (status)', size, await measure(iterations, () => run('list_tasks', { status: 'READY' }))));
      rows.push(row('get_task', size, await measure(iterations, (i) => run('get_task', { task_id: `bench-task-${(i * 7919) % size}` }))));
      rows.push(
        row('create_task', size, await measure(iterations, (i) => run('create_task', { project_id: projects[i % 50], title: `new ${i}`, description: 'bench' }))),
      );
    }
    return rows;
  } finally {
    if (runtime) await runtime.close();
    await rm(home, { recursive: true, force: true });
  }
}
