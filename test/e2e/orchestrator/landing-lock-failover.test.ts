// @database-dependent: the landing lock is one row per train taken by a conditional upsert from several processes, and a killed holder's lease must lapse in the database.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '../../integration/orchestrator/harness';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';
import { spawnScriptedWorker, stopWorkers, type WorkerProcess } from '../fleet/scripted-fleet';

jest.setTimeout(180_000);

const LEASE_MS = 3000;
const TRAIN = 'project:web';
/**
 * The project's check: the first run marks the workspace and then holds the landing (so the test
 * can kill its holder there); any later run passes at once.
 */
const CHECK = 'if [ -f .git/aq-check-ran ]; then echo "second check passes"; else touch .git/aq-check-ran; sleep 20; fi';

/**
 * Two `aq worker` processes (the real runtime and FleetWorker, bench/scripted-worker.ts) on one
 * database drive one merge train. The one that takes the landing lock is killed with SIGKILL in
 * the middle of the landing (its check running); the other takes the train over once the lease
 * lapses, starts the landing over and lands the task, once.
 */
describe('a worker killed while it holds the landing lock (two worker processes)', () => {
  let rt: TestRuntime;
  const workers: WorkerProcess[] = [];

  afterEach(async () => {
    await stopWorkers(workers);
    await rt?.cleanup();
  });

  it('the other worker lands the task after the lease lapses, and nothing lands twice', async () => {
    rt = await makeTestRuntime({ AQ_LOCAL_AGENTS: 'false', AQ_AGENTS: '0' });
    const origin = await createOriginRepo(rt.home);
    const workspace = await cloneWorkspace(origin, path.join(rt.home, 'shared-ws'));
    await rt.exec('create_project', { name: 'web' });
    expect(await rt.exec('edit_project', { project_id: 'web', check_command: CHECK, check_timeout_seconds: 60 })).toMatchObject({
      updated: 'web',
    });
    const id = (await rt.exec('create_task', { project_id: 'web', title: 'Land me', description: 'Already done.' })).created as string;
    // The task's run is over: its work is committed on its branch, and it waits in the train keeping its workspace.
    await gitOut(workspace, 'checkout', '-q', '-b', 'land-me');
    await commitFile(workspace, 'landed.txt', 'landed\n', `agent: Land me\n\nTask-Id: ${id}`);
    await rt.db.workspaces.create({ id: 'ws', projectId: 'web', name: 'ws', path: workspace, sourceType: 'clone', repoId: null });
    await putTask(rt.db, id, 'AWAITING_APPROVAL', { branchName: 'land-me', workspaceId: 'ws' });
    expect(await rt.db.workspaces.acquire('ws', id, null)).toBe(true);
    await rt.db.mergeTrain.enter({ taskId: id, projectId: 'web', train: TRAIN }, Date.now());

    for (const name of ['w1', 'w2']) {
      workers.push(spawnScriptedWorker(rt, name, { capacity: 1, leaseMs: LEASE_MS, databaseUrl: rt.config.databaseUrl }));
    }
    const story = async (err: Error) =>
      new Error(
        [err.message, `task ${await rt.db.tasks.get(id).then((t) => t?.status)}`, ...workers.map((w) => w.output.join(''))].join('\n'),
      );

    // One worker holds the lock with its check running.
    const holder = await waitFor(
      async () => existsSync(path.join(workspace, '.git', 'aq-check-ran')) && (await rt.db.mergeTrain.lockHolder(TRAIN, Date.now())),
      90_000,
      'a worker to hold the landing lock in its check',
    ).catch(async (err) => {
      throw await story(err);
    });
    const pid = Number(holder.split(':')[1]);
    const victim = workers.find((w) => w.child.pid === pid);
    expect(victim).toBeDefined();
    expect((await rt.db.mergeTrain.get(id))?.state).toBe('checking');
    victim!.child.kill('SIGKILL');
    await victim!.exited;

    await waitFor(async () => (await rt.db.tasks.get(id))?.status === 'COMPLETED', 90_000, 'the other worker to land the task').catch(
      async (err) => {
        throw await story(err);
      },
    );
    const survivor = workers.find((w) => w !== victim)!;
    const eventsOfTask = async () => (await rt.db.events.recent(200)).filter((e) => e.taskId === id);
    // The task shows COMPLETED a moment before its completion is told.
    await waitFor(async () => (await eventsOfTask()).some((e) => e.type === 'task_completed'), 30_000, 'task_completed');
    const events = await eventsOfTask();
    const ofType = (type: string) => events.filter((e) => e.type === type);
    // Started by the victim, started over by the survivor; landed and completed once.
    expect(ofType('landing_started')).toHaveLength(2);
    expect(ofType('landed')).toHaveLength(1);
    expect(ofType('task_completed')).toHaveLength(1);
    expect(ofType('landing_sent_back')).toEqual([]);
    expect(survivor.child.exitCode).toBeNull();
    // Origin's main holds the task's commit once.
    const trailers = (await gitOut(origin, 'log', 'main', '--format=%(trailers:key=Task-Id,valueonly)'))
      .split('\n')
      .filter((t) => t.trim() === id);
    expect(trailers).toHaveLength(1);
    expect(await gitOut(origin, 'show', 'main:landed.txt')).toBe('landed');
    expect(await rt.db.mergeTrain.list({ projectId: 'web' })).toEqual([]);
    await waitFor(async () => (await rt.db.mergeTrain.lockHolder(TRAIN, Date.now())) === null, 30_000, 'the lock to be free');
  });
});
