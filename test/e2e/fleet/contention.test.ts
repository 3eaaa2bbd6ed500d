import { overlappingRuns } from '../../integration/fleet/fleet-harness';
import { waitFor } from '../../integration/orchestrator/harness';
import { onPostgres } from '../../support/postgres-databases';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { seedScriptedFleet, spawnScriptedWorker, stopWorkers, type WorkerProcess } from './scripted-fleet';

jest.setTimeout(300_000);

const WORKERS = 8;
const CAPACITY = 2;
// Eight workers at capacity two keep sixteen claims in flight at every moment; more tasks only
// make the run longer, not the contention higher. 64 is four rounds of every claim slot.
const TASKS = 64;
const LEASE_MS = 3000;
const TERMINAL = new Set(['COMPLETED', 'BLOCKED']);

/** Task i's script: some fail once then succeed, some fail for good, some take a while (and get stopped), most complete at once. */
function titleOf(i: number): string {
  if (i % 10 === 3) return `t${i} fails:9`;
  if (i % 4 === 0) return `t${i} fails:1`;
  if (i % 5 === 1) return `t${i} ms:2000`;
  return `t${i}`;
}

/**
 * The fleet under contention (issue 20): eight worker processes (the real runtime and FleetWorker,
 * a scripted agent) on one database, 64 tasks whose runs fail, succeed and retry in a mix, stops
 * and restarts from the app, and one worker killed with SIGKILL while it holds claims. Every task
 * ends where its runs say, every run record closes, no two runs of a task overlap, and no
 * deadlock or busy database escapes the retries.
 */
describe('eight worker processes, 64 tasks, stops, restarts and a kill -9', () => {
  let rt: TestRuntime;
  const workers: WorkerProcess[] = [];

  afterEach(async () => {
    await stopWorkers(workers);
    await rt?.cleanup();
  });

  function startWorker(name: string): WorkerProcess {
    const w = spawnScriptedWorker(rt, name, { capacity: CAPACITY, leaseMs: LEASE_MS, databaseUrl: rt.config.databaseUrl });
    workers.push(w);
    return w;
  }

  it('every task ends where its runs say, and nothing is lost or run twice at once', async () => {
    rt = await makeTestRuntime({ AQ_LOCAL_AGENTS: 'false', AQ_AGENTS: '0' });
    const { ids, titles } = await seedScriptedFleet(rt, { workers: WORKERS, capacity: CAPACITY, tasks: TASKS, titleOf });
    for (let n = 1; n <= WORKERS; n++) startWorker(`w${n}`);

    const statuses = async () => rt.db.tasks.statusesOf(ids);
    const story = async (err: Error) => {
      const s = await statuses();
      const open = [...s].filter(([, st]) => !TERMINAL.has(st));
      return new Error([err.message, JSON.stringify(open), ...workers.map((w) => w.output.join('').slice(-3000))].join('\n'));
    };

    // Stops and restarts from the app while the fleet works: a slow task is stopped, then restarted.
    let stops = 0;
    let killed = false;
    const chaos = (async () => {
      for (;;) {
        const s = await statuses();
        const done = [...s.values()].filter((st) => TERMINAL.has(st)).length;
        if (done === ids.length) return;
        if (!killed && done > TASKS / 4) {
          // A worker holding claims dies without a word; its claims lapse and run elsewhere.
          const holders = (await rt.db.workers.list()).filter((w) => w.runningTaskIds.length > 0);
          const victim = workers.find((w) => w.name === holders[0]?.name && w.child.exitCode === null);
          if (victim) {
            victim.child.kill('SIGKILL');
            await victim.exited;
            killed = true;
          }
        }
        const slow = stops >= 12 ? undefined : ids.find((id) => s.get(id) === 'IN_PROGRESS' && titles.get(id)?.includes('ms:'));
        if (slow) {
          const stopped = await rt.exec('stop_task', { task_id: slow });
          if (stopped.stopped) {
            stops++;
            expect(await rt.exec('restart_task', { task_id: slow })).toEqual(expect.objectContaining({ restarted: slow }));
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    await waitFor(
      async () => [...(await statuses()).values()].every((st) => TERMINAL.has(st)),
      200_000,
      'every task to reach COMPLETED or BLOCKED',
    ).catch(async (err) => {
      throw await story(err);
    });
    await chaos;
    expect(killed).toBe(true);
    expect(stops).toBeGreaterThan(0);

    const final = await statuses();
    for (const [id, status] of final) {
      // Nine failures outlast every retry; anything else completes (a stop was followed by a restart).
      expect([id, status]).toEqual([id, titles.get(id)?.includes('fails:9') ? 'BLOCKED' : 'COMPLETED']);
    }
    await waitFor(async () => (await rt.db.runRecords.all()).every((r) => r.endedAt !== null), 30_000, 'every run record to close').catch(
      async (err) => {
        throw await story(err);
      },
    );
    const runs = await rt.db.runRecords.all();
    expect(overlappingRuns(runs)).toEqual([]);
    // Nothing that lost a race surfaced: no deadlock, busy database or failed transaction in any worker's log.
    const logs = workers.map((w) => w.output.join('')).join('\n');
    expect(logs).not.toMatch(/deadlock|database is locked|SQLITE_BUSY|refused the change|failed unexpectedly/i);
    if (onPostgres()) {
      const [row] = (await rt.db
        .em()
        .getConnection()
        .execute('select deadlocks from pg_stat_database where datname = current_database()')) as Array<{ deadlocks: number }>;
      // Deadlocks the server detected (each retried by its loser); reported, not asserted: the lock order makes them rare.
      process.stdout.write(`PostgreSQL deadlocks detected during the run: ${Number(row?.deadlocks ?? 0)}\n`);
    }
  });
});
