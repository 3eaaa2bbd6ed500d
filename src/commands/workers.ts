import { z } from 'zod';
import { workerAlive, type WorkerRecord } from '../db/repositories/workers';
import { defineCommand } from './catalog';
import { pageFields, pageOf, sliceOf, type ListPaging } from './paging';

const WORKER_LIST: ListPaging = { key: 'workers', defaultLimit: 100, maxLimit: 500 };

/** A worker as status views show it: alive while it heartbeats within its lease. */
export function workerView(w: WorkerRecord, now = Date.now()) {
  return {
    name: w.name,
    host: w.host,
    alive: workerAlive(w, now),
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
  kind: 'read',
  description: `List the \`aq worker\` machines that run agents for this queue, by name, ${WORKER_LIST.defaultLimit} a page: alive or not, capacity, labels, the tasks they run and their last heartbeat.`,
  input: () => z.object(pageFields(WORKER_LIST)),
  list: WORKER_LIST,
  async run(args, ctx) {
    // The fleet is a handful of machines: read whole, paged here.
    const page = sliceOf(await ctx.db.workers.list(), pageOf(args, WORKER_LIST.defaultLimit));
    const now = Date.now();
    return { workers: page.items.map((w) => workerView(w, now)), total: page.total, next_offset: page.next_offset };
  },
});

export const workerCommands = [listWorkers];
