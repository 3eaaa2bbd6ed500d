import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { TestRuntime } from '../../support/runtime';

/** Built by `npm run build`: an `aq worker` whose agent is scripted by the task's title (bench/scripted-worker.ts). */
const WORKER = path.join(__dirname, '..', '..', '..', 'dist', 'bench', 'scripted-worker.js');

export interface WorkerProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<void>;
}

/**
 * Project `web` with `capacity` plain folders (no repository: runs cost database work only) for
 * each of `workers` machines w1…wN, and `tasks` tasks titled by `titleOf`. Returns the task ids
 * and each one's title.
 */
export async function seedScriptedFleet(
  rt: TestRuntime,
  shape: { workers: number; capacity: number; tasks: number; titleOf: (i: number) => string },
): Promise<{ ids: string[]; titles: Map<string, string> }> {
  await rt.exec('create_project', { name: 'web', max_concurrent_agents: shape.workers * shape.capacity });
  for (let n = 1; n <= shape.workers; n++) {
    for (let k = 1; k <= shape.capacity; k++) {
      const folder = path.join(rt.home, 'machines', `w${n}`, 'web', `ws-${k}`);
      await mkdir(folder, { recursive: true });
      await rt.db.workspaces.create({
        id: `web-w${n}-ws-${k}`,
        projectId: 'web',
        name: `w${n}-ws-${k}`,
        path: folder,
        sourceType: 'link',
        repoId: null,
        workerId: `w${n}`,
      });
    }
  }
  const ids: string[] = [];
  for (let i = 0; i < shape.tasks; i++) {
    ids.push((await rt.exec('create_task', { project_id: 'web', title: shape.titleOf(i), description: 'Scripted.' })).created as string);
  }
  return { ids, titles: new Map(ids.map((id, i) => [id, shape.titleOf(i)])) };
}

/** Starts one scripted worker process on the runtime's database; its output is collected. */
export function spawnScriptedWorker(
  rt: TestRuntime,
  name: string,
  options: { capacity: number; leaseMs: number; databaseUrl: string; env?: Record<string, string> },
): WorkerProcess {
  const child = spawn(process.execPath, [WORKER, name, String(options.capacity), String(options.leaseMs)], {
    env: {
      PATH: process.env.PATH,
      AQ_HOME: path.join(rt.home, 'machines', name),
      DATABASE_URL: options.databaseUrl,
      AQ_ALLOW_UNSANDBOXED: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { name, child, output, exited };
}

/** Ends every worker still running and waits for all of them to exit. */
export async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
}
