import type { EmFactory } from '../database';
import { storedJson } from './column-values';
import { placeholders, runSql } from './run-sql';

/**
 * Shared flags every process must agree on, such as the orchestrator's global pause. Reads are
 * plain statements (the JSON column read as its text on both databases, then parsed): through
 * the ORM's find a one-row read cost about four times as much, and status reads make several.
 */
export class SystemStateRepository {
  constructor(private readonly em: EmFactory) {}

  async get<T>(key: string, fallback: T): Promise<T> {
    const rows = await this.read([key]);
    return rows.has(key) ? (rows.get(key) as T) : fallback;
  }

  /** The rows of `keys` that exist, in one statement (a status read is one round trip, not one per key). */
  async getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    return (await this.read(keys)) as Map<string, T>;
  }

  /**
   * Stores `value` (as its JSON text, as the ORM wrote it) under `key`. One statement, not the
   * ORM's upsert (which built it anew through its query builder at every call).
   */
  async set(key: string, value: unknown): Promise<void> {
    await runSql(
      this.em(),
      `insert into system_state (key, value, updated_at) values (?, ?, ?)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [key, JSON.stringify(value ?? null), Date.now()],
    );
  }

  private async read(keys: readonly string[]): Promise<Map<string, unknown>> {
    if (keys.length === 0) return new Map();
    const rows = await this.em().execute<Array<{ key: string; value: string | null }>>(
      `select key, cast(value as text) as value from system_state where key in (${placeholders(keys)})`,
      [...keys],
    );
    return new Map(rows.map((r) => [r.key, storedJson(r.value)]));
  }
}
