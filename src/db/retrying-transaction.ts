import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { isPostgres } from './dialect';

/**
 * The one place where a write that lost a race to another process is tried again. Every
 * repository transaction goes through `retryingTransaction`, and every write statement made
 * outside one through `retrying` (run-sql.ts), so a deadlock or a busy database costs a short
 * wait instead of a half-done move. The order in which transactions take their locks, which
 * keeps deadlocks rare in the first place, is in repositories/LOCK-ORDER.md.
 */

/** Why a database refused work that may succeed if tried again; null when retrying would not help. */
export type TransientCause = 'deadlock' | 'serialization' | 'busy' | 'connection';

const PG_CAUSES: Record<string, TransientCause> = {
  '40P01': 'deadlock',
  '40001': 'serialization',
  // The server ended the connection (pg_terminate_backend, a restart) or is starting up.
  '57P01': 'connection',
  '57P02': 'connection',
  '57P03': 'connection',
  '08000': 'connection',
  '08003': 'connection',
  '08006': 'connection',
};

const NODE_CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** Classifies an error from either driver (MikroORM copies the driver's `code` onto its own error). */
export function transientCause(err: unknown): TransientCause | null {
  if (!err || typeof err !== 'object') return null;
  const code = String((err as { code?: unknown }).code ?? '');
  const message = String((err as { message?: unknown }).message ?? '');
  if (PG_CAUSES[code]) return PG_CAUSES[code];
  // SQLite: SQLITE_BUSY (another connection writes), SQLITE_BUSY_SNAPSHOT (our read snapshot went
  // stale before our first write), SQLITE_LOCKED; node-sqlite3 reports them as code SQLITE_BUSY.
  if (code.startsWith('SQLITE_BUSY') || code === 'SQLITE_LOCKED' || /database is locked|SQLITE_BUSY/.test(message)) return 'busy';
  if (NODE_CONNECTION_CODES.has(code) || /Connection terminated unexpectedly|terminating connection/i.test(message)) return 'connection';
  return null;
}

const CAUSE_WORDS: Record<TransientCause, string> = {
  deadlock: 'a deadlock with another process',
  serialization: 'a serialization conflict with another process',
  busy: 'the database being busy with another writer',
  connection: 'the database connection being lost',
};

/** A write that kept losing its race through every attempt: one line that says so. */
export class DatabaseContentionError extends Error {
  constructor(
    readonly reason: TransientCause,
    readonly attempts: number,
    readonly last: unknown,
  ) {
    super(`The database refused the change ${attempts} times in a row because of ${CAUSE_WORDS[reason]}; it was not made.`);
    this.name = 'DatabaseContentionError';
  }
}

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** The first backoff's ceiling; each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Waits between attempts (tests that count attempts pass their own). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /**
   * SQLite only (default true): the transaction's first statement takes the file's write lock,
   * as BEGIN IMMEDIATE would, waiting its turn (busy_timeout). Without it, a transaction that
   * reads before it writes fails with SQLITE_BUSY whenever another process wrote meanwhile, and
   * under many writers it can lose that race through every attempt.
   */
  writeLockFirst?: boolean;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 10, baseDelayMs: 15, maxDelayMs: 2000 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** "Full jitter": a random wait below an exponentially growing ceiling, so racers spread out. */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor((policy.random ?? Math.random)() * ceiling);
}

/** Runs `work` again, whole, while it fails for a transient cause, up to the policy's attempts. */
export async function retrying<T>(work: (attempt: number) => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (err) {
      const cause = transientCause(err);
      if (!cause) throw err;
      if (attempt >= policy.attempts) throw new DatabaseContentionError(cause, attempt, err);
      await (policy.sleep ?? sleep)(backoffMs(attempt, policy));
    }
  }
}

/**
 * `work` in one transaction on a fresh EntityManager from `fork`, retried whole on a deadlock,
 * a serialization failure, a busy SQLite file or a lost connection (each attempt rolled back
 * first, so nothing is half-done). `work` must be safe to run again: it reads what it needs
 * inside. Inside a wider transaction (`fork` hands out that transaction's EntityManager) it runs
 * once, as a savepoint: only the outermost transaction can be retried.
 */
export async function retryingTransaction<T>(
  fork: () => SqlEntityManager,
  work: (tx: SqlEntityManager) => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<T> {
  const first = fork();
  if (first.isInTransaction()) return first.transactional((em) => work(em as SqlEntityManager));
  const lockFirst = (policy.writeLockFirst ?? true) && !isPostgres(first);
  return retrying(
    (attempt) =>
      (attempt === 1 ? first : fork()).transactional(async (em) => {
        // A write that changes nothing still takes SQLite's write lock for the transaction.
        if (lockFirst) await em.execute('update system_state set key = key where 1 = 0', [], 'run');
        return work(em as SqlEntityManager);
      }),
    policy,
  );
}
