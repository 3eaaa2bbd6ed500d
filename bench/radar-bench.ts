import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { TASK_STATUSES } from '../src/db/value-sets';
import { GitManager } from '../src/git/git-manager';
import { refreshRunRadars, TaskRadar } from '../src/orchestrator/conflict-radar';
import { createRuntime, type Runtime } from '../src/runtime';
import { cloneOnBranch, commitAll, makeOrigin, writeIn } from './git-repos';
import { percentiles, type BenchRow } from './table';

const TASKS = 50;
/** Tasks share one of these files by groups of ten: 5 × 45 overlapping pairs. */
const SHARED = 5;
const HEARTBEATS = 20;
const PROJECT = 'bench';

/**
 * The conflict radar's cost per heartbeat at 50 running tasks of one repository, each in its own
 * real git workspace with two committed files (one shared with nine other tasks) and one
 * uncommitted: all radars refreshed at once, as a worker's heartbeat does.
 */
export async function runRadarBench(): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-radar-bench-'));
  let rt: Runtime | null = null;
  try {
    rt = await createRuntime(loadConfig({ AQ_HOME: home }), { log: () => undefined });
    const files = Object.fromEntries(Array.from({ length: SHARED }, (_, i) => [`src/shared-${i}.ts`, `export const v${i} = 0;\n`]));
    const origin = await makeOrigin(home, files);
    await rt.db.projects.create({ id: PROJECT, name: PROJECT, workspace: home });
    // A refresh that fails is logged and retried at the next heartbeat: the bench counts them.
    const failures: string[] = [];
    const deps = { db: rt.db, events: rt.events, git: new GitManager(), log: (message: string) => failures.push(message) };
    const runs: Array<{ radar: TaskRadar; path: string }> = [];
    for (let i = 0; i < TASKS; i++) {
      const task = await rt.db.tasks.create({ projectId: PROJECT, title: `Task ${i}`, description: 'x' });
      const ws = await cloneOnBranch(origin, path.join(home, `ws-${i}`), `aq/task-${i}`);
      await writeIn(ws, `src/shared-${i % SHARED}.ts`, `export const v${i % SHARED} = ${i + 1};\n`);
      await writeIn(ws, `src/own-${i}.ts`, `export const own = ${i};\n`);
      await commitAll(ws, `Task ${i}`);
      await writeIn(ws, `notes-${i}.md`, 'work in progress\n');
      await rt.db.workspaces.create({ id: `ws-${i}`, projectId: PROJECT, name: `ws-${i}`, path: ws, sourceType: 'clone', repoId: null });
      await rt.db.tasks.transition(task.id, [...TASK_STATUSES], 'IN_PROGRESS', { workspaceId: `ws-${i}`, branchName: `aq/task-${i}` });
      runs.push({ radar: new TaskRadar(deps, task, { path: ws, repoId: null }, 'main'), path: ws });
    }
    let overlaps = 0;
    rt.events.subscribe((e) => {
      if (e.type === 'overlap_detected') overlaps++;
    });

    const timed = async (before?: (beat: number) => Promise<void>): Promise<{ median: number; p99: number }> => {
      const samples: number[] = [];
      for (let beat = 0; beat < HEARTBEATS; beat++) {
        await before?.(beat);
        const start = performance.now();
        await refreshRunRadars(runs.map((r) => ({ radar: r.radar })));
        samples.push(performance.now() - start);
      }
      return percentiles(samples);
    };
    const firstStart = performance.now();
    await refreshRunRadars(runs.map((r) => ({ radar: r.radar })));
    const first = performance.now() - firstStart;
    const found = overlaps;
    const failedFirst = failures.length;
    const still = await timed();
    // Every task's agent wrote one more file since the last heartbeat: each stores its files and compares.
    const moved = await timed(async (beat) => {
      for (const [i, r] of runs.entries()) await writeIn(r.path, `scratch-${beat}.md`, `${i}\n`);
    });
    const perTask = (ms: number) => `${(ms / TASKS).toFixed(2)} ms per task`;
    const setting = `${TASKS} running tasks, one repository, real workspaces; ${HEARTBEATS} heartbeats`;
    return [
      {
        name: `radar heartbeat, nothing moved (${TASKS} tasks)`,
        value: `${still.median.toFixed(0)} ms median`,
        note: `p99 ${still.p99.toFixed(0)} ms, ${perTask(still.median)}: one \`git status\` each, no database write; ${setting}`,
      },
      {
        name: `radar heartbeat, every task touched a file (${TASKS} tasks)`,
        value: `${moved.median.toFixed(0)} ms median`,
        note: `p99 ${moved.p99.toFixed(0)} ms, ${perTask(moved.median)}: \`git status\`, store the file set, compare with the other live tasks`,
      },
      {
        name: `radar first look (${TASKS} tasks)`,
        value: `${first.toFixed(0)} ms`,
        note: `base ref and \`git diff base...HEAD\` each, ${found} overlaps found and announced (${SHARED} groups of ${TASKS / SHARED}); ${failedFirst} refreshes failed and were retried, ${failures.length} in all${failures[0] ? ` (first: ${failures[0].slice(0, 160)})` : ''}`,
      },
    ];
  } finally {
    if (rt) await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}
