import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database';
import type { RestartRequest } from '../db/repositories/restart-requests';
import type { DaemonLease } from '../db/repositories/scheduling';

export type { RestartRequest };

/** A lease whose heartbeat is older than this belongs to a dead daemon (the daemon renews it every cycle). */
export const DEFAULT_LEASE_STALE_MS = 30_000;

/** The daemon that holds a live scheduling lease, or null when none is running on this database. */
export async function runningDaemon(db: Database, now = new Date(), staleMs = DEFAULT_LEASE_STALE_MS): Promise<string | null> {
  return liveLeaseOwner(await db.scheduling.lease(), now, staleMs);
}

/** The owner of `lease` while its heartbeat is fresh; null for no lease or a dead daemon's. */
export function liveLeaseOwner(lease: DaemonLease | null, now = new Date(), staleMs = DEFAULT_LEASE_STALE_MS): string | null {
  return lease && now.getTime() - lease.heartbeat <= staleMs ? lease.owner : null;
}

/**
 * Leaves a restart request for the running daemon, which takes it on its next cycle. Resolves
 * to false when no daemon is running to take it.
 */
export async function askDaemonToRestart(db: Database, reason: string, now = new Date()): Promise<boolean> {
  const owner = await runningDaemon(db, now);
  if (!owner) return false;
  await db.restartRequests.leave({ id: randomUUID(), owner, reason }, now);
  return true;
}

/**
 * The daemon's side: takes the request addressed to `owner` (compare-and-delete, so a request
 * written meanwhile is not lost). A request left for a daemon that died first is dropped.
 */
export async function takeRestartRequest(db: Database, owner: string): Promise<RestartRequest | null> {
  const request = await db.restartRequests.pending();
  if (!request) return null;
  if (!(await db.restartRequests.take(request.id)) || request.owner !== owner) return null;
  return request;
}
