import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { FORGET_SILENT_WORKERS_AFTER_MS } from '../../../src/orchestrator/worker';
import { PROVISIONING_FAILURES_KEY } from '../../../src/orchestrator/workspace-provisioning';
import { ManualClock } from '../../../src/util/clock';
import { gitOut } from '../../support/git-fixtures';
import { type ScriptedAdapter, untilAborted, waitFor, writeIn } from '../orchestrator/harness';
import { makeFleet, overlappingRuns, peakConcurrency, type Fleet } from './fleet-harness';

jest.setTimeout(120_000);

/** A run that writes a file named after its task, and completes. */
async function writeTaskFile(req: Parameters<NonNullable<ScriptedAdapter['fallback']>>[0]) {
  await writeIn(req, `${req.taskId}.txt`, `${req.taskId}\n`);
  return {};
}

describe('workers on many machines (in-process workers, one connection each)', () => {
  let fleet: Fleet;
  afterEach(async () => {
    await fleet?.cleanup();
  });

  async function createTasks(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      ids.push(
        (await fleet.rt.exec('create_task', { project_id: 'web', title: `Task ${i}`, description: `Write file ${i}.` })).created as string,
      );
    }
    return ids;
  }

  it('three workers share the queue: every task completes once, merges once, within the project cap', async () => {
    fleet = await makeFleet({ maxConcurrentAgents: 4 });
    const ids = await createTasks(12);
    for (const name of ['alpha', 'beta', 'gamma']) {
      // Leases long enough for a loaded machine: three workers and the app share one event loop here.
      const w = await fleet.addWorker(name, { leaseMs: 6000 });
      w.adapter.fallback = writeTaskFile;
    }
    await waitFor(
      async () => (await fleet.rt.db.tasks.list({ projectId: 'web', status: 'COMPLETED' }, 100)).tasks.length === ids.length,
      90_000,
      'every task to complete',
    );
    const runs = await fleet.rt.db.runRecords.all();
    expect(runs).toHaveLength(ids.length);
    expect(overlappingRuns(runs)).toEqual([]);
    expect(peakConcurrency(runs)).toBeLessThanOrEqual(4);
    // Each worker ran only in its own workspaces, and every task ran on exactly one worker.
    const workspaces = await fleet.rt.db.workspaces.list('web');
    for (const run of runs) {
      expect(workspaces.find((w) => w.id === run.workspaceId)?.workerId).toBe(run.workerId);
    }
    expect(new Set(runs.map((r) => r.workerId))).toEqual(new Set(['alpha', 'beta', 'gamma']));
    const log = await gitOut(fleet.origin, 'log', '--format=%B', 'main');
    for (const id of ids) expect(log.split(`Task-Id: ${id}\n`).length - 1).toBe(1);
    // Token usage and events reached the shared database.
    expect((await fleet.rt.exec('get_token_usage', { project_id: 'web' })).total).toBe(ids.length * 128);
    const status = await fleet.rt.exec('get_status');
    expect(status.workers).toEqual(
      ['alpha', 'beta', 'gamma'].map((name) => expect.objectContaining({ name, alive: true, capacity: 2, running_tasks: [] })),
    );
  });

  it('stop_task from the app reaches the worker running the task', async () => {
    fleet = await makeFleet();
    const [id] = await createTasks(1);
    const w = await fleet.addWorker('alpha');
    let aborted = false;
    w.adapter.on(id, async (req) => {
      await untilAborted(req);
      aborted = true;
      return { status: 'aborted' };
    });
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'IN_PROGRESS', 30_000, 'the task to start on the worker');
    expect(await fleet.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    await waitFor(async () => aborted, 15_000, 'the worker to end the run');
    await waitFor(async () => (await fleet.rt.db.runRecords.forTask(id))[0]?.endedAt !== null, 15_000, 'the run record to close');
    expect((await fleet.rt.db.tasks.get(id))?.status).toBe('BLOCKED');
  });

  it('a lapsed claim goes back to READY and runs elsewhere; the dead worker keeps its workspace, its run is fenced off', async () => {
    fleet = await makeFleet();
    const [id] = await createTasks(1);
    // The ghost's clock never moves: no heartbeat and no timed pass (what kill -9 or a lost network
    // leaves). Nor does it hear PostgreSQL's notifications: woken by the task going back to READY,
    // it would claim it again, with a lease its stopped clock dates in the past.
    const ghost = await fleet.addWorker('ghost', { leaseMs: 1000, clock: new ManualClock(), wakeOnWork: false });
    ghost.adapter.on(id, (req) => untilAborted(req).then(() => ({ status: 'aborted' as const })));
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'IN_PROGRESS', 30_000, 'the ghost to start the task');
    const [ghostRun] = await fleet.rt.db.runRecords.forTask(id);
    // Seen from a worker whose time of day is past the ghost's lease, the claim has lapsed already.
    await fleet.addWorker('alive', { now: () => new Date(Date.now() + 1500) });
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'COMPLETED', 30_000, 'the task to complete elsewhere');

    const runs = await fleet.rt.db.runRecords.forTask(id);
    if (runs.length !== 2) {
      // Seen once in a full run on a loaded machine (three runs: the ghost's, then two on alive):
      // the story of the task, for the next time.
      const events = (await fleet.rt.db.events.recent(100)).filter((e) => e.taskId === id).map((e) => [e.type, e.createdAt, e.payload]);
      const logs = fleet.workers.map((w) => `${w.worker.name}:\n${w.logs.join('\n')}`);
      process.stdout.write(`${JSON.stringify({ runs, events }, null, 1)}\n${logs.join('\n')}\n`);
    }
    expect(runs.map((r) => [r.workerId, r.outcome])).toEqual([
      ['ghost', 'LEASE_EXPIRED'],
      ['alive', 'COMPLETED'],
    ]);
    expect(overlappingRuns(runs)).toEqual([]);
    const retry = (await fleet.rt.db.events.recent(50)).find((e) => e.type === 'task_retrying' && e.taskId === id);
    expect(retry?.payload).toMatchObject({ reason: 'worker ghost stopped answering', retry_count: 0 });
    // The ghost's workspace is still its own: nobody else touched it. (A ghost that was only slow
    // saw its claim lapse at its next heartbeat and ended its run, unlocking it itself.)
    const ghostWorkspace = await fleet.rt.db.workspaces.get(ghostRun.workspaceId);
    expect(ghostWorkspace?.workerId).toBe('ghost');
    expect([id, null]).toContain(ghostWorkspace?.lockedByTaskId);
    // When the ghost's run comes back to life, its moves no longer land.
    await ghost.worker.stop();
    expect((await fleet.rt.db.tasks.get(id))?.status).toBe('COMPLETED');
    expect(await fleet.rt.db.runRecords.forTask(id)).toHaveLength(2);
  });

  it('a worker silent for a day is forgotten when another starts, with its agents, unless it holds a claim; it can come back', async () => {
    fleet = await makeFleet();
    const twoDaysAgo = () => new Date(Date.now() - 2 * FORGET_SILENT_WORKERS_AFTER_MS);
    // One stopped cleanly two days ago; one stopped answering then (a replaced container)...
    const stopped = await fleet.addWorker('pod-stopped', { now: twoDaysAgo });
    await stopped.stop();
    expect((await fleet.rt.exec('get_status')).agents).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'pod-stopped-agent-1', state: 'PAUSED' })]),
    );
    await fleet.addWorker('pod-gone', { now: twoDaysAgo, clock: new ManualClock(), wakeOnWork: false, labels: ['project:none'] });
    // ...and one as silent, but still holding its claim on a task (created only now, so that
    // neither of the others could take it).
    const [id] = await createTasks(1);
    const holding = await fleet.addWorker('pod-holding', { now: twoDaysAgo, clock: new ManualClock(), wakeOnWork: false });
    holding.adapter.on(id, (req) => untilAborted(req).then(() => ({ status: 'aborted' as const })));
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'IN_PROGRESS', 30_000, 'the silent worker to hold the task');

    const fresh = await fleet.addWorker('pod-fresh');
    expect(fresh.logs).toContain('Worker pod-fresh: forgot 2 worker(s) silent for a day: pod-gone, pod-stopped.');
    const status = await fleet.rt.exec('get_status');
    expect((status.workers as Array<{ name: string }>).map((w) => w.name)).toEqual(['pod-fresh', 'pod-holding']);
    expect(status.workers_total).toBe(2);
    expect((status.agents as Array<{ id: string }>).map((a) => a.id).sort()).toEqual(
      ['pod-fresh-agent-1', 'pod-fresh-agent-2', 'pod-holding-agent-1', 'pod-holding-agent-2'].sort(),
    );
    expect((await fleet.rt.exec('list_workers')).total).toBe(2);

    // Once its lapsed claim is taken over and the task done, the silent one holds nothing; a
    // forgotten machine that comes back registers again, with its agents, and forgets it.
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'COMPLETED', 30_000, 'the task to complete on pod-fresh');
    const back = await fleet.addWorker('pod-stopped');
    expect(back.logs).toContain('Worker pod-stopped: forgot 1 worker(s) silent for a day: pod-holding.');
    const now = await fleet.rt.exec('get_status');
    expect((now.workers as Array<{ name: string }>).map((w) => w.name)).toEqual(['pod-fresh', 'pod-stopped']);
    expect(now.agents).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'pod-stopped-agent-1', state: 'IDLE' })]));
    expect((now.agents as unknown[]).length).toBe(4);
  });

  it("a forgotten worker's workspaces and failures go with it; back, it takes back its checkouts that are still clones", async () => {
    fleet = await makeFleet();
    const completed = (ids: string[]) => async () =>
      (await Promise.all(ids.map((id) => fleet.rt.db.tasks.get(id)))).every((t) => t?.status === 'COMPLETED');
    const laptopWorkspaces = async () =>
      (await fleet.rt.db.workspaces.list('web'))
        .filter((w) => w.workerId === 'laptop')
        .map((w) => w.id)
        .sort();

    const first = await createTasks(2);
    const laptop = await fleet.addWorker('laptop');
    laptop.adapter.fallback = writeTaskFile;
    await waitFor(completed(first), 60_000, 'both tasks to complete on the laptop');
    expect(await laptopWorkspaces()).toEqual(['web-laptop-ws-1', 'web-laptop-ws-2']);
    await laptop.stop();
    // Switched off two days ago, with a failure kept for it; the app's own failure is not its.
    await fleet.rt.db.workers.markStopped('laptop', Date.now() - 2 * FORGET_SILENT_WORKERS_AFTER_MS);
    const failure = { error: 'Could not clone', source: fleet.origin, at: 1 };
    await fleet.rt.db.state.set(PROVISIONING_FAILURES_KEY, { 'web@laptop': failure, web: failure });

    const desk = await fleet.addWorker('desk');
    expect(desk.logs).toContain('Worker desk: forgot 1 worker(s) silent for a day: laptop.');
    await desk.stop();
    expect(await laptopWorkspaces()).toEqual([]);
    expect(await fleet.rt.db.state.get(PROVISIONING_FAILURES_KEY, {})).toEqual({ web: failure });
    const folders = path.join(fleet.rt.home, 'machines', 'laptop', 'web');
    expect((await readdir(folders)).sort()).toEqual(['laptop-ws-1', 'laptop-ws-2']);

    // Back on Monday: ws-1 now points elsewhere, so it is left alone; ws-2 is taken back as it is.
    await gitOut(path.join(folders, 'laptop-ws-1'), 'remote', 'set-url', 'origin', path.join(fleet.rt.home, 'elsewhere.git'));
    const back = await fleet.addWorker('laptop');
    back.adapter.fallback = writeTaskFile;
    const second = await createTasks(2);
    await waitFor(completed(second), 60_000, 'both new tasks to complete on the laptop');
    expect(await laptopWorkspaces()).toEqual(['web-laptop-ws-2', 'web-laptop-ws-3']);
    expect(back.logs.join('\n')).toMatch(/Took back workspace\(s\) web-laptop-ws-2 for project web/);
    const runs = (await fleet.rt.db.runRecords.all()).filter((r) => second.includes(r.taskId));
    expect(runs.map((r) => r.workspaceId).sort()).toEqual(['web-laptop-ws-2', 'web-laptop-ws-3']);
  });

  it('a live worker whose row was removed registers again at its next heartbeat, and goes on taking work', async () => {
    fleet = await makeFleet();
    const w = await fleet.addWorker('alive');
    expect(await fleet.rt.db.workers.forgetSilentSince(Date.now() + 60_000)).toEqual(['alive']);
    expect((await fleet.rt.exec('get_status')).agents).toEqual([]);
    // The line comes after the row and its agents are back: the row alone is seen a round trip earlier.
    const again = 'Worker alive: its row was gone from the workers table; registered again.';
    await waitFor(async () => w.logs.includes(again), 30_000, 'the worker to register again');
    expect(await fleet.rt.db.workers.get('alive')).not.toBeNull();
    const [id] = await createTasks(1);
    await waitFor(async () => (await fleet.rt.db.tasks.get(id))?.status === 'COMPLETED', 30_000, 'the task to complete on it');
    expect((await fleet.rt.db.runRecords.forTask(id)).map((r) => r.workerId)).toEqual(['alive']);
  });
});
