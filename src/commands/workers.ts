import { z } from 'zod';
import type { WorkerRecord } from '../db/repositories/workers';
import { defineCommand } from './catalog';

/** A worker as status views show it: alive while it heartbeats within its lease. */
export function workerView(w: WorkerRecord, now = Date.now()): Record<string, unknown> {
  return {
    name: w.name,
    host: w.host,
    alive: w.stoppedAt === null && now - w.heartbeatAt <= w.leaseMs,
    capacity: w.capacity,
    labels: w.labels,
    running: w.runningTaskIds.length,
    running_tasks: w.runningTaskIds,
    last_heartbeat: new Date(w.heartbeatAt).toISOString(),
    started_at: new Date(w.startedAt).toISOString(),
    ...(w.stoppedAt !== null && { stopped_at: new Date(w.stoppedAt).toISOString() }),
  };
}

export const listWorkers = defineCommand({
  name: 'list_workers',
  group: 'agents',
  description:
    'List the `aq worker` machines that run agents for this queue: alive or not, capacity, labels, the tasks they run and their last heartbeat.',
  input: z.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const workers = await ctx.db.workers.list();
    const now = Date.now();
    return { workers: workers.map((w) => workerView(w, now)), total: workers.length };
  },
});

export const workerCommands = [listWorkers];
