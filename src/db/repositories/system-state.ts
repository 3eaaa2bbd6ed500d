import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { EmFactory } from '../database';
import { placeholders, runSql } from './run-sql';

/**
 * A `system_state` value read as `cast(value as text)`: the JSON column's text on both databases
 * (PostgreSQL would return its JSON parsed, SQLite its text), parsed here.
 */
export function stateValue(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** Stores `value` (as its JSON text, as the ORM wrote it) under `key`, replacing what was there. */
export async function setStateValue(em: SqlEntityManager, key: string, value: unknown): Promise<void> {
  await runSql(
    em,
    `insert into system_state (key, value, updated_at) values (?, ?, ?)
      on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    [key, JSON.stringify(value ?? null), Date.now()],
  );
}

/** The value stored under `key`, parsed; undefined when there is no such row. */
export async function stateValueOf(em: SqlEntityManager, key: string): Promise<unknown> {
  const rows = await em.execute<Array<{ value: string | null }>>('select cast(value as text) as value from system_state where key = ?', [
    key,
  ]);
  return rows.length === 0 ? undefined : stateValue(rows[0].value);
}

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

  /** One statement, not the ORM's upsert (which built it anew through its query builder at every call). */
  async set(key: string, value: unknown): Promise<void> {
    await setStateValue(this.em(), key, value);
  }

  private async read(keys: readonly string[]): Promise<Map<string, unknown>> {
    if (keys.length === 0) return new Map();
    const rows = await this.em().execute<Array<{ key: string; value: string | null }>>(
      `select key, cast(value as text) as value from system_state where key in (${placeholders(keys)})`,
      [...keys],
    );
    return new Map(rows.map((r) => [r.key, stateValue(r.value)]));
  }
}
