import { overlappingRuns } from '../../integration/fleet/fleet-harness';
import { waitFor } from '../../integration/orchestrator/harness';
import { adminQuery } from '../../support/postgres-databases';
import { type PostgresServer, startPostgres } from '../../support/postgres-server';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { seedScriptedFleet, spawnScriptedWorker, stopWorkers, type WorkerProcess } from './scripted-fleet';

jest.setTimeout(240_000);

const WORKERS = 3;
const CAPACITY = 2;
const TASKS = 30;
const LEASE_MS = 3000;
const TERMINAL = new Set(['COMPLETED', 'BLOCKED']);
/** Every worker connects under this application_name (PGAPPNAME), so the admin connection can pick out their backends. */
const WORKER_APP = 'aq-fault-worker';

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): void;
}
// pg ships no types; this is the little of it used here.
const { Client } = require('pg') as { Client: new (url: string) => PgClient };

/** One query on a connection of its own, so a restart or a terminated backend never leaves it broken. */
async function adminRows(url: string, sql: string, values: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const client = new Client(url);
  // The restart ends this connection too: between its calls that arrives as an 'error' event, which
  // unheard would fail the suite. The calls themselves still reject.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Task i's script: some fail once then succeed, some fail for good, some take a while, the rest complete at once. */
function titleOf(i: number): string {
  if (i % 10 === 3) return `t${i} fails:9`;
  if (i % 4 === 0) return `t${i} fails:1`;
  if (i % 3 === 1) return `t${i} ms:1500`;
  return `t${i}`;
}

/**
 * Fault injection on PostgreSQL (issue 20): three worker processes (the real runtime and
 * FleetWorker, a scripted agent) on a server of the test's own, whose connections are terminated
 * with pg_terminate_backend mid-run and which is then restarted with pg_ctl while the workers run.
 * A worker that exits is started again, as an operator's supervisor (systemd Restart=always)
 * would; the test reports how many were. Nothing is lost, no two runs of a task overlap, every
 * run record closes, and no task stays stranded longer than about a lease.
 */
describe('PostgreSQL faults under a working fleet: terminated connections and a server restart', () => {
  let server: PostgresServer;
  let rt: TestRuntime | undefined;
  const workers: WorkerProcess[] = [];
  let stopping = false;

  beforeAll(async () => {
    // A server of its own: restarting the shared one would break every other suite's connections.
    server = await startPostgres();
  });

  afterAll(async () => {
    stopping = true;
    await stopWorkers(workers);
    await rt?.cleanup();
    await server?.stop();
  });

  it('nothing is lost or run twice at once, and every stranded task is repaired within about a lease', async () => {
    await adminQuery('create database aq_faults', server.url('').replace(/\/$/, ''));
    const url = server.url('aq_faults');
    const admin = server.url('postgres');
    rt = await makeTestRuntime({ AQ_LOCAL_AGENTS: 'false', AQ_AGENTS: '0', DATABASE_URL: url });
    const runtime = rt;
    const { ids, titles } = await seedScriptedFleet(runtime, { workers: WORKERS, capacity: CAPACITY, tasks: TASKS, titleOf });

    let restarts = 0;
    const startWorker = (name: string): WorkerProcess => {
      const w = spawnScriptedWorker(runtime, name, {
        capacity: CAPACITY,
        leaseMs: LEASE_MS,
        databaseUrl: url,
        env: { PGAPPNAME: WORKER_APP },
      });
      workers.push(w);
      // The operator's supervisor: a worker that exits is started again under the same name.
      void w.exited.then(() => {
        if (stopping) return;
        restarts++;
        startWorker(name);
      });
      return w;
    };
    for (let n = 1; n <= WORKERS; n++) startWorker(`w${n}`);

    // Task states as the server has them, read on a connection of their own (null while the server restarts).
    const snapshot = async () =>
      adminRows(url, `select id, status, retry_count, max_retries, claimed_by, lease_expires_at from tasks where id = any($1)`, [
        ids,
      ]).catch(() => null);
    const story = async (err: Error) => {
      const rows = (await snapshot()) ?? [];
      const open = rows.filter((r) => !TERMINAL.has(r.status as string)).map((r) => [r.id, r.status, r.claimed_by]);
      return new Error(
        [err.message, JSON.stringify(open), ...workers.map((w) => `${w.name}: ${w.output.join('').slice(-2000)}`)].join('\n'),
      );
    };

    // Watches for stranded tasks all along: FAILED with retries left, or ASSIGNED / IN_PROGRESS with no live lease.
    const strandedSince = new Map<string, number>();
    let longestStranded = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const rows = await snapshot();
        const now = Date.now();
        if (rows) {
          const stranded = new Set(
            rows
              .filter((r) => {
                const status = r.status as string;
                if (status === 'FAILED') return Number(r.retry_count) < Number(r.max_retries);
                if (status !== 'ASSIGNED' && status !== 'IN_PROGRESS') return false;
                return r.claimed_by === null || r.lease_expires_at === null || Number(r.lease_expires_at) < now;
              })
              .map((r) => r.id as string),
          );
          for (const id of strandedSince.keys()) if (!stranded.has(id)) strandedSince.delete(id);
          for (const id of stranded) if (!strandedSince.has(id)) strandedSince.set(id, now);
          for (const since of strandedSince.values()) longestStranded = Math.max(longestStranded, now - since);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const doneCount = async () => ((await snapshot()) ?? []).filter((r) => TERMINAL.has(r.status as string)).length;

    // Fault 1: the workers' connections are cut mid-run, from the admin connection (never the test's own).
    await waitFor(async () => (await doneCount()) >= 5, 120_000, 'five tasks to finish before the first fault').catch(async (err) => {
      throw await story(err);
    });
    // The faults land on a fleet with work left: tasks still queued or running.
    expect(await doneCount()).toBeLessThan(TASKS);
    const terminated = await adminRows(
      admin,
      'select pg_terminate_backend(pid) as gone from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
      [WORKER_APP],
    );
    expect(terminated.filter((r) => r.gone === true).length).toBeGreaterThan(0);

    // Fault 2: the server restarts (pg_ctl restart -m fast) while the workers run.
    await waitFor(async () => (await doneCount()) >= 12, 120_000, 'twelve tasks to finish before the restart').catch(async (err) => {
      throw await story(err);
    });
    expect(await doneCount()).toBeLessThan(TASKS);
    await server.restart();

    await waitFor(async () => (await doneCount()) === TASKS, 150_000, 'every task to reach COMPLETED or BLOCKED').catch(async (err) => {
      throw await story(err);
    });
    watching = false;
    await watcher;

    const final = (await snapshot()) ?? [];
    expect(final).toHaveLength(TASKS);
    for (const r of final) {
      // Nine failures outlast every retry; every other task completes.
      expect([r.id, r.status]).toEqual([r.id, titles.get(r.id as string)?.includes('fails:9') ? 'BLOCKED' : 'COMPLETED']);
    }
    // The test runtime's own pooled connections went down with the restart: its next query may meet a dead one.
    const runs = await waitFor(
      async () => {
        const all = await runtime.db.runRecords.all().catch(() => null);
        return all?.every((r) => r.endedAt !== null) ? all : null;
      },
      30_000,
      'every run record to close',
    ).catch(async (err) => {
      throw await story(err);
    });
    expect(overlappingRuns(runs)).toEqual([]);
    // A lease to lapse, then the next reconcile or reap pass (loaded machine: twice the lease).
    expect(longestStranded).toBeLessThanOrEqual(2 * LEASE_MS);
    process.stdout.write(`Workers restarted by the supervisor: ${restarts}; longest a task stayed stranded: ${longestStranded} ms\n`);
  });
});
