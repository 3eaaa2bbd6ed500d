import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { createRuntime, type Runtime } from '../src/runtime';
import { buildSnapshot, type CycleDeps } from '../src/orchestrator/cycle';
import { schedule } from '../src/orchestrator/scheduler';
import { TaskStateMachine } from '../src/orchestrator/state-machine';
import { percentiles, type BenchRow } from './table';

const PROJECTS = 50;
const AGENTS = 20;
const READY = 10_000;
/** Tasks finished before the scheduling window (a month and more ago). */
const HISTORY = 100_000;

/** 10k READY tasks (plus 10k finished in the window and 100k before it) over 50 projects, a workspace each, 20 idle agents. */
export async function seedSchedulerBench(rt: Runtime): Promise<void> {
  await rt.db.transaction(async (em) => {
    const now = Date.now();
    for (let p = 0; p < PROJECTS; p++) {
      const id = `bench-${p}`;
      await em.execute(
        'insert into projects (id, name, status, credit_weight, max_concurrent_agents, workspace, created_at, updated_at) values (?, ?, ?, ?, 2, ?, ?, ?)',
        [id, id, p % 10 === 9 ? 'PAUSED' : 'ACTIVE', 1 + (p % 3), `/tmp/${id}`, now, now],
      );
      for (let w = 0; w < 2; w++) {
        await em.execute("insert into workspaces (id, project_id, name, path, source_type, created_at) values (?, ?, ?, ?, 'clone', ?)", [
          `${id}-w${w}`,
          id,
          `w${w}`,
          `/tmp/${id}/w${w}`,
          now,
        ]);
      }
    }
    for (let a = 0; a < AGENTS; a++) {
      await em.execute("insert into agents (id, name, type, state, created_at) values (?, ?, 'claude', 'IDLE', ?)", [
        `agent-${a}`,
        `agent-${a}`,
        now,
      ]);
    }
    const columns =
      'id, project_id, title, description, status, priority, retry_count, max_retries, requires_approval, is_plan_subtask, plan_depth, auto_tasks, skipped, created_at, updated_at, completed_at';
    for (let start = 0; start < READY * 2; start += 500) {
      const rows: string[] = [];
      const params: unknown[] = [];
      for (let i = start; i < Math.min(READY * 2, start + 500); i++) {
        const done = i >= READY;
        rows.push('(?, ?, ?, ?, ?, ?, 0, 3, 0, 0, 0, 1, 0, ?, ?, ?)');
        const at = now - (READY * 2 - i) * 1000;
        params.push(`t-${i}`, `bench-${i % PROJECTS}`, `Task ${i}`, 'x', done ? 'COMPLETED' : 'READY', i % 200, at, at, done ? at : null);
      }
      await em.execute(`insert into tasks (${columns}) values ${rows.join(', ')}`, params);
    }
    // The history: tasks finished long before the scheduling window, which no pass should read.
    for (let start = 0; start < HISTORY; start += 500) {
      const rows: string[] = [];
      const params: unknown[] = [];
      for (let i = start; i < Math.min(HISTORY, start + 500); i++) {
        rows.push("(?, ?, 'Old', 'x', 'COMPLETED', 100, 0, 3, 0, 0, 0, 1, 0, ?, ?, ?)");
        const at = now - 40 * 24 * 3600_000 - i * 1000;
        params.push(`old-${i}`, `bench-${i % PROJECTS}`, at, at, at);
      }
      await em.execute(`insert into tasks (${columns}) values ${rows.join(', ')}`, params);
    }
    for (let i = 0; i < 5_000; i++) {
      await em.execute(
        "insert into token_usage (project_id, task_id, source, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, tokens, cost_usd, created_at) values (?, ?, 'agent', 100, 20, 5, 5, 130, 0.01, ?)",
        [`bench-${i % PROJECTS}`, `t-${READY + i}`, now - i * 10_000],
      );
    }
  });
}

async function measure(iterations: number, work: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < 5; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

/** One scheduling pass (SQL snapshot + pure scheduler) at 10k READY tasks, 50 projects, 20 agents. */
export async function runSchedulerBench(iterations = 100): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-sched-bench-'));
  let rt: Runtime | null = null;
  try {
    rt = await createRuntime(loadConfig({ AQ_HOME: home }), { log: () => undefined });
    await seedSchedulerBench(rt);
    const deps: CycleDeps = {
      db: rt.db,
      events: rt.events,
      machine: new TaskStateMachine(rt.db, () => undefined),
      git: { isRepo: async () => true },
      // Every project of the bench has its workspaces: nothing is cloned in the timed pass.
      provisioning: { git: { isRepo: async () => true, clone: async () => undefined, getRemoteUrl: async () => null }, retryMs: 60_000 },
      now: () => new Date(),
      windowMs: 24 * 3600_000,
      log: () => undefined,
    };
    const snap = () => buildSnapshot(deps, { globalPaused: false, excludeWorkspaceIds: new Set(), blocked: [] });
    const snapshot = await snap();
    let assigned = 0;
    const snapshotTime = await measure(iterations, snap);
    const scheduleTime = await measure(iterations * 10, async () => {
      assigned = schedule(snapshot).length;
    });
    const passTime = await measure(iterations, async () => schedule(await snap()));
    const note = `${PROJECTS} projects, ${READY / 1000}k READY + ${READY / 1000}k COMPLETED in the window + ${HISTORY / 1000}k before it, ${AGENTS} idle agents`;
    return [
      {
        name: 'scheduler snapshot (SQL)',
        value: `${snapshotTime.median.toFixed(2)} ms median`,
        note: `p99 ${snapshotTime.p99.toFixed(2)} ms; ${note}; counts the tasks completed in the window`,
      },
      {
        name: 'schedule() (pure)',
        value: `${scheduleTime.median.toFixed(3)} ms median`,
        note: `p99 ${scheduleTime.p99.toFixed(3)} ms; ${assigned} assignments`,
      },
      {
        name: 'scheduling pass (snapshot + schedule)',
        value: `${passTime.median.toFixed(2)} ms median`,
        note: `p99 ${passTime.p99.toFixed(2)} ms`,
      },
    ];
  } finally {
    if (rt) await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}
