import { SystemState } from '../entities';
import type { EmFactory } from '../database';

/** Shared flags every process must agree on, such as the orchestrator's global pause. */
export class SystemStateRepository {
  constructor(private readonly em: EmFactory) {}

  async get<T>(key: string, fallback: T): Promise<T> {
    const row = await this.em().findOne(SystemState, { key });
    return row ? (row.value as T) : fallback;
  }

  async set(key: string, value: unknown): Promise<void> {
    const em = this.em();
    await em.upsert(SystemState, { key, value, updatedAt: new Date() });
  }
}
