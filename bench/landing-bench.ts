import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { TASK_STATUSES } from '../src/db/value-sets';
import { GitManager } from '../src/git/git-manager';
import { driveTrain, enterTrain } from '../src/orchestrator/landing';
import { TaskStateMachine } from '../src/orchestrator/state-machine';
import { GitManagerTaskGit } from '../src/orchestrator/task-git';
import { createRuntime, type Runtime } from '../src/runtime';
import { cloneOnBranch, commitAll, git, makeOrigin, writeIn } from './git-repos';
import type { BenchRow } from './table';

const TASKS = 20;
const PROJECT = 'bench';

/**
 * Landing throughput: 20 tasks of one repository queued in its merge train (each its own
 * workspace and branch with one commit, none conflicting), landed by one pass of the train with
 * the check command `true`: for each, fetch and rebase onto origin's moving tip, the confined
 * check, merge and push to a real bare origin; SQLite.
 */
export async function runLandingBench(): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-landing-bench-'));
  let rt: Runtime | null = null;
  try {
    rt = await createRuntime(loadConfig({ AQ_HOME: home }), { log: () => undefined });
    const origin = await makeOrigin(home, { 'README.md': '# Bench\n' });
    await rt.db.projects.create({ id: PROJECT, name: PROJECT, workspace: home, checkCommand: 'true' });
    for (let i = 0; i < TASKS; i++) {
      const task = await rt.db.tasks.create({ projectId: PROJECT, title: `Task ${i}`, description: 'x' });
      const branch = `aq/task-${i}`;
      const ws = await cloneOnBranch(origin, path.join(home, `ws-${i}`), branch);
      await writeIn(ws, `src/file-${i}.txt`, `task ${i}\n`);
      await commitAll(ws, `Task ${i}\n\nTask-Id: ${task.id}`);
      await rt.db.workspaces.create({ id: `ws-${i}`, projectId: PROJECT, name: `ws-${i}`, path: ws, sourceType: 'clone', repoId: null });
      await rt.db.tasks.transition(task.id, [...TASK_STATUSES], 'AWAITING_APPROVAL', { workspaceId: `ws-${i}`, branchName: branch });
      await enterTrain(rt, task);
    }
    const log = () => undefined;
    const deps = {
      db: rt.db,
      events: rt.events,
      machine: new TaskStateMachine(rt.db, log),
      git: new GitManagerTaskGit(new GitManager()),
      config: rt.config,
      log,
    };
    const start = performance.now();
    const landed = await driveTrain(deps, `project:${PROJECT}`);
    const ms = performance.now() - start;
    const onMain = (await git(origin, 'log', 'main', '--format=%H', '--grep=Task-Id:')).split('\n').filter(Boolean).length;
    if (landed !== TASKS || onMain !== TASKS) throw new Error(`landing bench: ${landed} landed, ${onMain} on main, of ${TASKS}`);
    return [
      {
        name: `landing throughput (${TASKS} queued tasks, one repository)`,
        value: `${(TASKS / (ms / 60_000)).toFixed(1)} tasks/min`,
        note: `${(ms / TASKS / 1000).toFixed(2)} s per landing: rebase onto origin's tip, check \`true\` under bubblewrap, merge and push; real bare origin, SQLite`,
      },
    ];
  } finally {
    if (rt) await rt.close();
    await rm(home, { recursive: true, force: true });
  }
}
