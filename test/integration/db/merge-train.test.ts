import { Database } from '../../../src/db/database';
import { onPostgres } from '../../support/postgres-databases';
import { openTestDatabase } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

jest.setTimeout(60_000);

/** The merge train's order and state moves, and the per-train landing lock, against the database. */
describe('merge train and landing lock', () => {
  let db: Database;
  let other: Database;
  let cleanup: () => Promise<void>;
  let tmpCleanup: () => Promise<void>;
  const ids: string[] = [];

  beforeEach(async () => {
    const tmp = await makeTempDir('aq-train-');
    tmpCleanup = tmp.cleanup;
    const opened = await openTestDatabase(tmp.dir);
    db = opened.db;
    cleanup = opened.cleanup;
    // A second process's connection to the same database.
    other = await Database.open(onPostgres() ? (db.orm.config.get('clientUrl') as string) : `${tmp.dir}/aq.db`);
    await db.projects.create({ id: 'p', name: 'p', workspace: tmp.dir });
    ids.length = 0;
    for (const title of ['a', 'b', 'c']) ids.push((await db.tasks.create({ projectId: 'p', title, description: title })).id);
  });
  afterEach(async () => {
    await other.close();
    await cleanup();
    await tmpCleanup();
  });

  const enter = (taskId: string, at: number) => db.mergeTrain.enter({ taskId, projectId: 'p', train: 'r1' }, at);

  it('keeps first-entered-first order, re-entry at the end, and moves to a place', async () => {
    const [a, b, c] = ids;
    await enter(a, 1);
    await enter(b, 2);
    await other.mergeTrain.enter({ taskId: c, projectId: 'p', train: 'r1' }, 3);
    expect((await db.mergeTrain.list({ train: 'r1' })).map((e) => [e.taskId, e.place, e.state])).toEqual([
      [a, 1, 'waiting'],
      [b, 2, 'waiting'],
      [c, 3, 'waiting'],
    ]);
    await enter(a, 4);
    expect((await db.mergeTrain.list({ projectId: 'p' })).map((e) => e.taskId)).toEqual([b, c, a]);
    expect(await db.mergeTrain.moveTo(a, 1)).toMatchObject({ taskId: a, place: 1 });
    expect(await db.mergeTrain.moveTo(b, 99)).toMatchObject({ taskId: b, place: 3 });
    expect((await db.mergeTrain.list({ train: 'r1' })).map((e) => e.taskId)).toEqual([a, c, b]);
    expect(await db.mergeTrain.moveTo('nope', 1)).toBeNull();
    expect(await db.mergeTrain.remove(c)).toBe(true);
    expect(await db.mergeTrain.remove(c)).toBe(false);
    expect((await db.mergeTrain.list({ train: 'r1' })).map((e) => [e.taskId, e.place])).toEqual([
      [a, 1],
      [b, 2],
    ]);
    expect(await db.mergeTrain.trainsWaiting(10)).toEqual(['r1']);
  });

  it('queues an approval once: a second approval of a task in a train, from any connection, queues nothing', async () => {
    const [a, b] = ids;
    const approve = (on: Database, taskId: string) =>
      on.mergeTrain.enter({ taskId, projectId: 'p', train: 'r1' }, 5, { onlyIfAbsent: true });
    expect(await enter(a, 1)).toBe(true);
    expect(await Promise.all([approve(db, b), approve(other, b)])).toEqual(expect.arrayContaining([true, false]));
    expect(await approve(other, a)).toBe(false);
    expect((await db.mergeTrain.list({ train: 'r1' })).map((e) => [e.taskId, e.place])).toEqual([
      [a, 1],
      [b, 2],
    ]);
  });

  it('moves an entry only from the state it expects, so a landing starts once', async () => {
    const [a] = ids;
    await enter(a, 1);
    const starts = await Promise.all([
      db.mergeTrain.advance(a, ['waiting'], 'updating', 2),
      other.mergeTrain.advance(a, ['waiting'], 'updating', 2),
    ]);
    expect(starts.filter(Boolean)).toHaveLength(1);
    expect(await db.mergeTrain.advance(a, ['updating'], 'sent_back', 3, { lastOutcome: 'conflict in a.txt', countTry: true })).toBe(true);
    expect(await db.mergeTrain.get(a)).toMatchObject({ state: 'sent_back', since: 3, tries: 1, lastOutcome: 'conflict in a.txt' });
    expect(await db.mergeTrain.next('r1')).toBeNull();
    await enter(a, 5);
    expect(await db.mergeTrain.get(a)).toMatchObject({ state: 'waiting', tries: 1, lastOutcome: 'conflict in a.txt' });
  });

  it('gives the lock to one holder at a time, and to another once the lease lapses', async () => {
    const [a] = ids;
    const takes = await Promise.all([
      db.mergeTrain.acquireLock('r1', 'w1', 1000, 10_000),
      other.mergeTrain.acquireLock('r1', 'w2', 1000, 10_000),
    ]);
    expect(takes.filter(Boolean)).toHaveLength(1);
    const [holder, loser] = takes[0] ? ['w1', 'w2'] : ['w2', 'w1'];
    expect(await db.mergeTrain.lockHolder('r1', 10_500)).toBe(holder);
    expect(await db.mergeTrain.acquireLock('r1', loser, 1000, 10_900)).toBe(false);
    expect(await db.mergeTrain.acquireLock('r1', 'w1', 1000, 10_900)).toBe(holder === 'w1');
    // The holder dies mid-landing: its lease lapses and the next taker resumes the stranded entry.
    await enter(a, 1);
    await db.mergeTrain.advance(a, ['waiting'], 'checking', 2);
    // Stranded: the train is no longer listed as waiting while the lease runs, and listed again once it lapsed.
    expect(await db.mergeTrain.trainsWaiting(10_900)).toEqual([]);
    expect(await other.mergeTrain.trainsWaiting(20_000)).toEqual(['r1']);
    expect(await db.mergeTrain.acquireLock('r1', loser, 1000, 20_000)).toBe(true);
    expect(await db.mergeTrain.renewLock('r1', holder, 1000, 20_001)).toBe(false);
    expect(await db.mergeTrain.resumeStranded('r1', 20_002)).toBe(1);
    expect(await db.mergeTrain.get(a)).toMatchObject({ state: 'waiting' });
    await db.mergeTrain.releaseLock('r1', holder);
    expect(await db.mergeTrain.lockHolder('r1', 20_003)).toBe(loser);
    await db.mergeTrain.releaseLock('r1', loser);
    expect(await db.mergeTrain.lockHolder('r1', 20_003)).toBeNull();
  });

  it('leaves the train with its task', async () => {
    const [a] = ids;
    await enter(a, 1);
    await db.tasks.delete(a);
    expect(await db.mergeTrain.list({ train: 'r1' })).toEqual([]);
  });
});
