import { Database } from '../../../src/db/database';
import type { EventRecord } from '../../../src/db/repositories/events';
import { EventLog } from '../../../src/orchestrator/events';
import { waitFor } from '../orchestrator/harness';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * The app relays to Slack what other processes (`aq`, workers) store in the event log: every
 * event once, in order, pages past the first included, and none of its own. On both databases,
 * with the other process as a second connection to the same database.
 */
describe('the relay of events other processes store', () => {
  let rt: TestRuntime;
  let other: Database;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    other = await Database.open(rt.config.database);
  });
  afterEach(async () => {
    await other.close();
    await rt.cleanup();
  });

  it('delivers each event of another connection once, in order, and skips its own', async () => {
    const relay = new EventLog(rt.db, () => undefined);
    const seen: EventRecord[] = [];
    relay.subscribe((event) => {
      seen.push(event);
    });
    const stored = (origin: string, n: number) =>
      other.events.append({ type: 'task_updated', projectId: null, taskId: null, agentId: null, payload: { n }, origin });
    const stop = relay.followExternal(20);
    try {
      // The relay reads its starting point as it starts, and an event stored before that is not
      // its to relay: probes are stored until one shows up, and from then on it relays everything.
      await waitFor(
        async () => {
          if (seen.some((e) => e.origin === 'probe')) return true;
          await stored('probe', -1);
          return false;
        },
        60_000,
        'the relay to start',
      );
      const first = await stored('worker:w1', 0);
      await waitFor(async () => seen.some((e) => e.id === first.id), 60_000, 'the first event');

      // More than one page (200) between two reads, from two writers, and this process's own.
      const ids: number[] = [];
      await Promise.all(
        ['worker:w1', 'worker:w2'].map(async (origin) => {
          for (let n = 1; n <= 110; n++) ids.push((await stored(origin, n)).id);
        }),
      );
      // Its own events reach its listeners as it emits them, not a second time through the relay.
      const own = await relay.emit('task_updated', { payload: { own: true } });
      const last = await stored('aq', 999);
      await waitFor(async () => seen.some((e) => e.id === last.id), 60_000, 'the last event');

      // Each event once. Two writers' ids may commit out of order on PostgreSQL, and are then
      // relayed in commit order; each writer's own events keep theirs.
      const relayed = seen.filter((e) => e.id !== own.id && e.origin !== 'probe');
      expect(relayed.map((e) => e.id).sort((a, b) => a - b)).toEqual([first.id, ...ids.sort((a, b) => a - b), last.id]);
      for (const origin of ['worker:w1', 'worker:w2']) {
        const ns = relayed.filter((e) => e.origin === origin).map((e) => (e.payload as { n: number }).n);
        expect(ns).toEqual(Array.from({ length: 111 }, (_, n) => n).filter((n) => origin === 'worker:w1' || n > 0));
      }
      expect(seen.filter((e) => e.id === own.id)).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
