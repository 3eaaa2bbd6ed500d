import { SystemState } from '../entities';
import type { EmFactory } from '../database';

/** Shared flags every process must agree on, such as the orchestrator's global pause. */
export class SystemStateRepository {
  constructor(private readonly em: EmFactory) {}

  async get<T>(key: string, fallback: T): Promise<T> {
    const row = await this.em().findOne(SystemState, { key });
    return row ? (row.value as T) : fallback;
  }

  /** The rows of `keys` that exist, in one statement (a status read is one round trip, not one per key). */
  async getMany<T>(keys: readonly string[]): Promise<Map<string, T>> {
    const rows = await this.em().find(SystemState, { key: { $in: [...keys] } });
    return new Map(rows.map((row) => [row.key, row.value as T]));
  }

  async set(key: string, value: unknown): Promise<void> {
    const em = this.em();
    await em.upsert(SystemState, { key, value, updatedAt: new Date() });
  }
}
