import type { EmFactory } from '../database';
import { dialectOf } from '../dialect';
import { changes } from './run-sql';

/** The system_state row that holds the one pending request. */
const REQUEST_KEY = 'daemon_restart_request';

/** A restart asked for by a process that is not the daemon, addressed to the lease holder. */
export interface RestartRequest {
  id: string;
  owner: string;
  reason: string;
}

/** The restart request a process leaves for the running daemon (one at a time, the newest wins). */
export class RestartRequestRepository {
  constructor(private readonly em: EmFactory) {}

  /** Leaves `request`, replacing one that was not taken yet. */
  async leave(request: RestartRequest, now: Date): Promise<void> {
    await changes(
      this.em(),
      `insert into system_state (key, value, updated_at) values (?, ?, ?)
         on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [REQUEST_KEY, JSON.stringify(request), now.getTime()],
    );
  }

  /** The pending request, or null. */
  async pending(): Promise<RestartRequest | null> {
    const rows = (await this.em().execute('select value from system_state where key = ?', [REQUEST_KEY])) as Array<{ value: unknown }>;
    const raw = rows[0]?.value;
    if (raw == null) return null;
    return (typeof raw === 'string' ? JSON.parse(raw) : raw) as RestartRequest;
  }

  /** Removes the request `id` if it is still the pending one (compare-and-delete): whether it did. */
  async take(id: string): Promise<boolean> {
    const em = this.em();
    const taken = await changes(em, `delete from system_state where key = ? and ${dialectOf(em).jsonText('value', 'id')} = ?`, [
      REQUEST_KEY,
      id,
    ]);
    return taken > 0;
  }
}
