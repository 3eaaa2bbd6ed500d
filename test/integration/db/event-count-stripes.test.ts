import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

describe('the count of events', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  const direct = async () =>
    Number((await rt.db.em().getConnection().execute<Array<{ n: number }>>('select count(*) as n from events'))[0].n);

  it('stays exact when many writers append events at once, and through deletes', async () => {
    const before = await rt.db.events.count();
    expect(before).toBe(await direct());
    // Each append is its own transaction; on PostgreSQL they run side by side on the pool.
    const appended = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        rt.db.events.append({ type: 'bench_probe', projectId: null, taskId: null, agentId: null, payload: { i }, origin: null }),
      ),
    );
    expect(new Set(appended.map((e) => e.id)).size).toBe(64);
    expect(await rt.db.events.count()).toBe(before + 64);
    expect(await rt.db.events.count()).toBe(await direct());
    // Their count is spread over several rows, so concurrent writers do not queue on one.
    const stripes = await rt.db
      .em()
      .getConnection()
      .execute<Array<{ n: number }>>("select n from history_counts where name like 'events:%'");
    expect(stripes.length).toBeGreaterThan(1);

    await rt.db.em().getConnection().execute("delete from events where type = 'bench_probe' and id % 3 = 0");
    expect(await rt.db.events.count()).toBe(await direct());
  });
});
