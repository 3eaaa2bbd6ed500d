// @database-dependent: events are paged by id in SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { walkPages, type Page } from '../../support/pages';

describe('get_recent_events pages', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  it('get_recent_events pages back through the whole log with a total', async () => {
    for (let i = 0; i < 23; i++) await rt.events.emit('task_progress', { projectId: 'alpha', payload: { step: i } });
    const stored = Number(((await rt.db.em().getConnection().execute('select count(*) as n from events')) as Array<{ n: number }>)[0].n);
    expect(stored).toBeGreaterThan(23);

    const first = (await rt.exec('get_recent_events')) as Page<'events'>;
    expect(first.events).toHaveLength(10);
    expect(first).toMatchObject({ total: stored, next_offset: 10 });

    const pages = await walkPages(rt, 'get_recent_events', 'events', { limit: 7 });
    const ids = pages.flatMap((p) => p.events.map((e) => e.id as number));
    expect(ids).toHaveLength(stored);
    expect(new Set(ids).size).toBe(stored);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(pages.at(-1)!.next_offset).toBeNull();
    expect(pages.every((p) => p.events.length <= 7 && p.total === stored)).toBe(true);
    expect(await rt.exec('get_recent_events', { limit: 501 })).toEqual({ error: expect.stringContaining('limit') });
  });
});
