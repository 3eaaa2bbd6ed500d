import type { EventRecord } from '../../../src/db/repositories/events';
import { EventLog } from '../../../src/orchestrator/events';
import { waitFor } from '../orchestrator/harness';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

// PostgreSQL only (jest.config.js): SQLite runs one writer at a time, so ids always commit in order.
describe('the event relay on PostgreSQL, where ids can commit out of order', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it('relays an event whose transaction commits after a later one', async () => {
    const relay = new EventLog(rt.db, () => undefined);
    const seen: EventRecord[] = [];
    relay.subscribe((event) => {
      seen.push(event);
    });
    const stop = relay.followExternal(20);
    try {
      // The relay reads its starting point as it starts, and an event stored before that is not
      // its to relay: probes are stored until one shows up, and from then on it relays everything.
      await waitFor(
        async () => {
          if (seen.length > 0) return true;
          await rt.db.events.append({ type: 'note_created', projectId: null, taskId: null, agentId: null, payload: {}, origin: 'probe' });
          return false;
        },
        60_000,
        'the relay to start',
      );

      // Another process's insert has taken its id but not committed yet (the race, made wide).
      const conn = rt.db.em().getConnection();
      const [{ id: lateId }] = await conn.execute<Array<{ id: number }>>("select nextval('events_id_seq') as id");
      const early = await rt.db.events.append({
        type: 'task_updated',
        projectId: null,
        taskId: null,
        agentId: null,
        payload: {},
        origin: 'aq',
      });
      expect(early.id).toBeGreaterThan(lateId);
      await waitFor(async () => seen.some((e) => e.id === early.id), 60_000, 'the event committed first');

      await conn.execute("insert into events (id, type, payload, origin, created_at) values (?, 'task_created', '{}', 'aq', ?)", [
        lateId,
        Date.now(),
      ]);
      await waitFor(async () => seen.some((e) => e.id === lateId), 60_000, 'the event that committed late');
      expect(seen.filter((e) => e.origin !== 'probe').map((e) => e.id)).toEqual([early.id, lateId]);
    } finally {
      stop();
    }
  });
});
