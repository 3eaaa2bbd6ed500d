// @database-dependent: events are paged by id in SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { walkCursor, walkPages, type Page } from '../../support/pages';

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

  it('get_recent_events pages by cursor through the log, each event once, while newer events arrive', async () => {
    for (let i = 0; i < 23; i++) await rt.events.emit('task_progress', { projectId: 'alpha', payload: { step: i } });
    const conn = rt.db.em().getConnection();
    const before = ((await conn.execute('select id from events order by id desc')) as Array<{ id: number | string }>).map((r) =>
      Number(r.id),
    );

    let added = 0;
    const pages = await walkCursor(rt, 'get_recent_events', 'events', { limit: 4 }, async () => {
      added++;
      await rt.events.emit('task_progress', { projectId: 'alpha', payload: { added } });
    });
    expect(pages.length).toBe(Math.ceil(before.length / 4));
    expect(pages.flatMap((p) => p.events.map((e) => e.id))).toEqual(before);
    // The first page came by offset 0 and knows the next offset; pages reached by cursor do not.
    expect(pages.map((p) => p.next_offset)).toEqual([4, ...pages.slice(1).map(() => null)]);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    expect(pages.slice(0, -1).every((p) => typeof p.next_cursor === 'string')).toBe(true);
    // total counts what is stored when each page is read: the events added while paging too.
    expect(pages.map((p) => p.total)).toEqual(pages.map((_, i) => before.length + i));

    // A cursor older than every event reaches an empty last page.
    const last = pages.at(-2)!;
    const end = (await rt.exec('get_recent_events', { limit: 100, cursor: last.next_cursor! })) as Page<'events'>;
    expect(end).toMatchObject({ next_offset: null, next_cursor: null });
    expect(end.events.map((e) => e.id)).toEqual(pages.at(-1)!.events.map((e) => e.id));
  });

  it('says plainly when a cursor is not one it gave, or comes with an offset', async () => {
    for (let i = 0; i < 2; i++) await rt.events.emit('task_progress', { projectId: 'alpha', payload: { step: i } });
    const first = (await rt.exec('get_recent_events', { limit: 1 })) as { next_cursor: string };
    const refusal = {
      error:
        'That cursor is not one get_recent_events gave. Use next_cursor from its last reply, or leave cursor out to start at the first page.',
    };
    expect(await rt.exec('get_recent_events', { cursor: 'garbage!' })).toEqual(refusal);
    expect(await rt.exec('get_recent_events', { cursor: Buffer.from('["x"]').toString('base64url') })).toEqual(refusal);
    expect(await rt.exec('get_recent_events', { cursor: Buffer.from('[1, 2]').toString('base64url') })).toEqual(refusal);
    expect(await rt.exec('get_recent_events', { cursor: first.next_cursor, offset: 1 })).toEqual({
      error: 'Give either offset or cursor, not both.',
    });
  });
});
