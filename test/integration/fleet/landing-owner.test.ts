import { mayLandIn } from '../../../src/orchestrator/landing';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * A task lands in its own workspace, which is on the machine of the worker that ran it (or the
 * app's, for the daemon's agents). While that owner lives, only the owner lands in it: another
 * process would look for the path on its own disk. Once the owner is gone, anyone may try.
 */
describe('who may land in a workspace', () => {
  let rt: TestRuntime;
  afterEach(() => rt.cleanup());

  it("leaves a live owner's workspace to its owner, and lets anyone try once the owner is gone", async () => {
    rt = await makeTestRuntime();
    const now = Date.now();
    await rt.db.workers.register({ name: 'w1', host: 'build-1', capacity: 1, labels: [], leaseMs: 30_000 }, now);
    const onW1 = { workerId: 'w1' };
    const ofApp = { workerId: null };

    // w1 is alive: it lands its own; neither the app's daemon nor another worker does.
    expect(await mayLandIn({ db: rt.db, workerId: 'w1' }, onW1)).toBe(true);
    expect(await mayLandIn({ db: rt.db, workerId: null }, onW1)).toBe(false);
    expect(await mayLandIn({ db: rt.db, workerId: 'w2' }, onW1)).toBe(false);
    // A process that does not say whose workspaces it holds lands anywhere (one machine).
    expect(await mayLandIn({ db: rt.db }, onW1)).toBe(true);

    // Its heartbeat older than its lease: gone, so anyone may try.
    await rt.db.workers.heartbeat('w1', now - 31_000);
    expect(await mayLandIn({ db: rt.db, workerId: null }, onW1)).toBe(true);
    // Alive again, then stopped cleanly: gone too.
    await rt.db.workers.heartbeat('w1', Date.now());
    expect(await mayLandIn({ db: rt.db, workerId: 'w2' }, onW1)).toBe(false);
    await rt.db.workers.markStopped('w1', Date.now());
    expect(await mayLandIn({ db: rt.db, workerId: 'w2' }, onW1)).toBe(true);
    // A workspace of a worker nobody knows: anyone may try.
    expect(await mayLandIn({ db: rt.db, workerId: null }, { workerId: 'unknown' })).toBe(true);

    // The app's own workspaces: the daemon lands them; a worker only when no daemon runs.
    expect(await mayLandIn({ db: rt.db, workerId: 'w1' }, ofApp)).toBe(true);
    expect(await rt.db.scheduling.acquireLease('app-daemon', new Date(), 30_000)).toBe(true);
    expect(await mayLandIn({ db: rt.db, workerId: 'w1' }, ofApp)).toBe(false);
    expect(await mayLandIn({ db: rt.db, workerId: null }, ofApp)).toBe(true);
  });
});
