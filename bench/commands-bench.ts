import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { createRuntime, type Runtime } from '../src/runtime';
import { seedProjects, seedTasks, seedTokenUsage } from './seed';
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

/** get_token_usage overall and for one project (first page), with the size of the project reply. */
async function tokenUsageRows(rt: Runtime, iterations: number, label: string, projects: string[]): Promise<BenchRow[]> {
  const run = (args: Record<string, unknown>) => failIfError(rt.handler.execute('get_token_usage', args, { source: 'cli' }));
  const all = await measure(iterations, () => run({}));
  const project = await measure(iterations, (i) => run({ project_id: projects[i % projects.length] }));
  const reply = await rt.handler.execute('get_token_usage', { project_id: projects[0] }, { source: 'cli' });
  const bytes = Buffer.byteLength(JSON.stringify(reply));
  return [
    { name: `get_token_usage (all) @ ${label}`, value: `${all.median.toFixed(2)} ms median`, note: `p99 ${all.p99.toFixed(2)} ms` },
    {
      name: `get_token_usage (project) @ ${label}`,
      value: `${project.median.toFixed(2)} ms median`,
      note: `p99 ${project.p99.toFixed(2)} ms; reply ${(bytes / 1024).toFixed(1)} KB (first page of ${'breakdown_total' in reply ? reply.breakdown_total : '?'})`,
    },
  ];
}

export interface CommandsBenchOptions {
  /** Task counts the one database is grown to, in order (default 1k, 10k, 100k). */
  sizes?: number[];
  /** Timed calls per command and size, after 10 warm-up calls (default 200). */
  iterations?: number;
  /** Usage rows at the last step, after the task sizes (default 1M; each size also gets 2 per task). */
  usageRows?: number;
  /** postgres://… of an empty database to run on instead of a fresh SQLite file. */
  databaseUrl?: string;
  /** Prefix of every row's name (the database the figures are for). */
  label?: string;
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
 * 1k, 10k and 100k tasks over 50 projects, with 20 agents of which 10 are working; token usage
 * grows with it (2 rows per task), then to 1M rows.
 */
export async function runCommandsBench(options: CommandsBenchOptions = {}): Promise<BenchRow[]> {
  const sizes = options.sizes ?? [1_000, 10_000, 100_000];
  const iterations = options.iterations ?? 200;
  const usageRows = options.usageRows ?? 1_000_000;
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-'));
  let runtime: Runtime | null = null;
  try {
    const env = { AQ_HOME: home, ...(options.databaseUrl && { DATABASE_URL: options.databaseUrl }) };
    runtime = await createRuntime(loadConfig(env), { log: () => undefined });
    const rt = runtime;
    const run = (name: string, args: Record<string, unknown> = {}) => failIfError(rt.handler.executeAny(name, args, { source: 'cli' }));
    const projects = await seedProjects(rt.db, 50, rt.config.workspaceDir);
    const rows: BenchRow[] = [];
    let seeded = 0;
    let usageSeeded = 0;
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
        row(
          'create_task',
          size,
          await measure(iterations, (i) => run('create_task', { project_id: projects[i % 50], title: `new ${i}`, description: 'bench' })),
        ),
      );
      rows.push(row('list_tasks (last page, offset)', size, await measure(iterations, () => run('list_tasks', { offset: size - 200 }))));
      await seedTokenUsage(rt.db, projects.length, size, usageSeeded, size * 2);
      usageSeeded = size * 2;
      rows.push(...(await tokenUsageRows(rt, iterations, `${size / 1000}k tasks, ${usageSeeded / 1000}k usage rows`, projects)));
    }
    const tasks = seeded;
    await seedTokenUsage(rt.db, projects.length, tasks, usageSeeded, Math.max(usageSeeded, usageRows));
    usageSeeded = Math.max(usageSeeded, usageRows);
    const label = `${tasks / 1000}k tasks, ${usageSeeded / 1_000_000}M usage rows`;
    rows.push(...(await tokenUsageRows(rt, iterations, label, projects)));
    const record = await measure(iterations, (i) =>
      rt.db.tokenUsage.record({
        projectId: projects[i % 50],
        taskId: `bench-task-${i}`,
        agentId: 'agent-1',
        source: 'agent',
        inputTokens: 10,
        outputTokens: 5,
      }),
    );
    rows.push({
      name: `record a usage row (totals triggers) @ ${label}`,
      value: `${record.median.toFixed(2)} ms median`,
      note: `p99 ${record.p99.toFixed(2)} ms`,
    });
    // The query get_token_usage ran before the kept totals, for comparison (few calls: it is slow).
    const scan: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await rt.db
        .em()
        .getConnection()
        .execute('select project_id, sum(tokens) as tokens from token_usage group by project_id order by tokens desc');
      scan.push(performance.now() - start);
    }
    rows.push({
      name: `summing every usage row (the old get_token_usage) @ ${label}`,
      value: `${percentiles(scan).median.toFixed(1)} ms median`,
      note: 'for comparison; 3 calls',
    });
    return options.label ? rows.map((r) => ({ ...r, name: `${options.label}: ${r.name}` })) : rows;
  } finally {
    if (runtime) await runtime.close();
    await rm(home, { recursive: true, force: true });
  }
}
