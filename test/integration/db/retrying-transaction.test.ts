import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { Database } from '../../../src/db/database';
import { DatabaseContentionError, DEFAULT_RETRY_POLICY, retryingTransaction, transientCause } from '../../../src/db/retrying-transaction';
import { onPostgres } from '../../support/postgres-databases';
import { openTestDatabase } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

jest.setTimeout(60_000);

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

async function value(db: Database, key: string): Promise<unknown> {
  return db.state.get(key, undefined);
}

describe('retryingTransaction: a transaction that loses a race is tried again whole', () => {
  let db: Database;
  let other: Database;
  let cleanup: () => Promise<void>;
  let tmpCleanup: () => Promise<void>;

  beforeEach(async () => {
    const tmp = await makeTempDir('aq-retry-');
    tmpCleanup = tmp.cleanup;
    const opened = await openTestDatabase(tmp.dir);
    db = opened.db;
    cleanup = opened.cleanup;
    // A second process's connection to the same database.
    other = await Database.open(onPostgres() ? (db.orm.config.get('clientUrl') as string) : `${tmp.dir}/aq.db`);
    await db.state.set('a', 0);
    await db.state.set('b', 0);
  });

  afterEach(async () => {
    await other?.close();
    await cleanup?.();
    await tmpCleanup?.();
  });

  const bump = (tx: SqlEntityManager, key: string) =>
    tx.execute('update system_state set value = ? where key = ?', [JSON.stringify(1), key], 'run');

  if (onPostgres()) {
    it('two transactions locking two rows in opposite orders both land: the deadlock victim is retried', async () => {
      const firstLocked = signal();
      const secondLocked = signal();
      let attempts = 0;
      const one = retryingTransaction(
        () => db.em(),
        async (tx) => {
          attempts++;
          await bump(tx, 'a');
          firstLocked.fire();
          await secondLocked.promise;
          await bump(tx, 'b');
        },
      );
      const two = retryingTransaction(
        () => other.em(),
        async (tx) => {
          attempts++;
          await bump(tx, 'b');
          secondLocked.fire();
          await firstLocked.promise;
          await bump(tx, 'a');
        },
      );
      await Promise.all([one, two]);
      expect(attempts).toBe(3);
      expect([await value(db, 'a'), await value(db, 'b')]).toEqual([1, 1]);
    });

    it('without it, the same race surfaces as a deadlock, classified as one', async () => {
      const firstLocked = signal();
      const secondLocked = signal();
      const results = await Promise.allSettled([
        db.em().transactional(async (tx) => {
          await bump(tx as SqlEntityManager, 'a');
          firstLocked.fire();
          await secondLocked.promise;
          await bump(tx as SqlEntityManager, 'b');
        }),
        other.em().transactional(async (tx) => {
          await bump(tx as SqlEntityManager, 'b');
          secondLocked.fire();
          await firstLocked.promise;
          await bump(tx as SqlEntityManager, 'a');
        }),
      ]);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(transientCause(failed[0].reason)).toBe('deadlock');
    });
  } else {
    /**
     * Another process's writes, made when the transaction under test asks (one per attempt). They
     * run outside its callback: MikroORM hands a callback's own transaction to any EntityManager
     * forked inside it, even another Database's.
     */
    function otherWriter(times: number) {
      const asked = Array.from({ length: times }, signal);
      const done = Array.from({ length: times }, signal);
      const writes = (async () => {
        for (let i = 0; i < times; i++) {
          await asked[i].promise;
          await other.state.set('b', i + 1);
          done[i].fire();
        }
      })();
      return {
        writes,
        async writeNow(i: number) {
          asked[i].fire();
          await done[i].promise;
        },
      };
    }

    it('a transaction that reads before it writes, its snapshot made stale by another writer (SQLITE_BUSY), is retried on a fresh one', async () => {
      const writer = otherWriter(1);
      let attempts = 0;
      await retryingTransaction(
        () => db.em(),
        async (tx) => {
          attempts++;
          await tx.execute('select value from system_state where key = ?', ['a']);
          // The other process writes after this transaction read: its first write must not land on a stale read.
          if (attempts === 1) await writer.writeNow(0);
          await tx.execute('update system_state set value = ? where key = ?', [JSON.stringify(1), 'a'], 'run');
        },
        { ...DEFAULT_RETRY_POLICY, writeLockFirst: false },
      );
      await writer.writes;
      expect(attempts).toBe(2);
      expect([await value(db, 'a'), await value(db, 'b')]).toEqual([1, 1]);
    });

    it('by default the write lock comes first: another writer waits its turn, and nothing is retried', async () => {
      let attempts = 0;
      const inside = signal();
      const release = signal();
      const transaction = retryingTransaction(
        () => db.em(),
        async (tx) => {
          attempts++;
          await tx.execute('select value from system_state where key = ?', ['a']);
          inside.fire();
          await release.promise;
          await tx.execute('update system_state set value = ? where key = ?', [JSON.stringify(1), 'a'], 'run');
        },
      );
      await inside.promise;
      const otherWrite = other.state.set('b', 7);
      release.fire();
      await Promise.all([transaction, otherWrite]);
      expect(attempts).toBe(1);
      expect([await value(db, 'a'), await value(db, 'b')]).toEqual([1, 7]);
    });

    it('a race lost through every attempt ends in one sentence, and nothing of it is written', async () => {
      const writer = otherWriter(3);
      let attempts = 0;
      const failure = await retryingTransaction(
        () => db.em(),
        async (tx) => {
          attempts++;
          await tx.execute('select value from system_state where key = ?', ['a']);
          await writer.writeNow(attempts - 1);
          await tx.execute('update system_state set value = ? where key = ?', [JSON.stringify(99), 'a'], 'run');
        },
        { attempts: 3, baseDelayMs: 1, maxDelayMs: 5, writeLockFirst: false },
      ).catch((err: unknown) => err);
      await writer.writes;
      expect(failure).toBeInstanceOf(DatabaseContentionError);
      expect((failure as Error).message).toBe(
        'The database refused the change 3 times in a row because of the database being busy with another writer; it was not made.',
      );
      expect(attempts).toBe(3);
      expect([await value(db, 'a'), await value(db, 'b')]).toEqual([0, 3]);
    });
  }

  it('inside a wider transaction it runs once, as part of it', async () => {
    let attempts = 0;
    await db.transaction(async (outer) => {
      await retryingTransaction(
        () => outer,
        async (tx) => {
          attempts++;
          await bump(tx, 'a');
        },
      );
    });
    expect(attempts).toBe(1);
    expect(await value(db, 'a')).toBe(1);
  });
});
