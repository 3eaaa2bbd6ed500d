import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database';

const REQUEST_KEY = 'daemon_restart_request';

/** A lease whose heartbeat is older than this belongs to a dead daemon (the daemon renews it every cycle). */
export const DEFAULT_LEASE_STALE_MS = 30_000;

/** A restart asked for by a process that is not the daemon, addressed to the lease holder. */
export interface RestartRequest {
  id: string;
  owner: string;
  reason: string;
}

/** The daemon that holds a live scheduling lease, or null when none is running on this database. */
export async function runningDaemon(db: Database, now = new Date(), staleMs = DEFAULT_LEASE_STALE_MS): Promise<string | null> {
  const lease = await db.scheduling.lease();
  return lease && now.getTime() - lease.heartbeat <= staleMs ? lease.owner : null;
}

/**
 * Leaves a restart request for the running daemon, which takes it on its next cycle. Resolves
 * to false when no daemon is running to take it.
 */
export async function askDaemonToRestart(db: Database, reason: string, now = new Date()): Promise<boolean> {
  const owner = await runningDaemon(db, now);
  if (!owner) return false;
  const request: RestartRequest = { id: randomUUID(), owner, reason };
  await db
    .em()
    .getConnection()
    .execute(
      `insert into system_state (key, value, updated_at) values (?, ?, ?)
         on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [REQUEST_KEY, JSON.stringify(request), now.getTime()],
      'run',
    );
  return true;
}

/**
 * The daemon's side: takes the request addressed to `owner` (compare-and-delete, so a request
 * written meanwhile is not lost). A request left for a daemon that died first is dropped.
 */
export async function takeRestartRequest(db: Database, owner: string): Promise<RestartRequest | null> {
  const connection = db.em().getConnection();
  const rows = (await connection.execute('select value from system_state where key = ?', [REQUEST_KEY])) as Array<{ value: unknown }>;
  const raw = rows[0]?.value;
  if (raw == null) return null;
  const request = (typeof raw === 'string' ? JSON.parse(raw) : raw) as RestartRequest;
  const taken = (await connection.execute(
    `delete from system_state where key = ? and ${db.dialect.jsonText('value', 'id')} = ?`,
    [REQUEST_KEY, request.id],
    'run',
  )) as { affectedRows?: number };
  if (Number(taken.affectedRows ?? 0) === 0 || request.owner !== owner) return null;
  return request;
}
