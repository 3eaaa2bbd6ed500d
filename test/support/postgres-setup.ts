import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  SERVER_URL_VARIABLE,
  TEMPLATE_DATABASE,
  TEMPLATE_FINGERPRINT_VARIABLE,
  adminQuery,
  forgetFreeLists,
  templateFingerprint,
} from './postgres-databases';
import { startPostgres, type PostgresServer } from './postgres-server';

const KEY = '__aqTestPostgres';
type Holder = { [KEY]?: PostgresServer };

/**
 * One server per Jest run, with a migrated template database each test database is copied from
 * (copying is far faster than migrating). Workers find it through SERVER_URL_VARIABLE.
 */
export async function startPostgresForTests(): Promise<void> {
  const server = await startPostgres();
  (globalThis as Holder)[KEY] = server;
  const base = server.url('').replace(/\/$/, '');
  try {
    await adminQuery(`create database ${TEMPLATE_DATABASE}`, base);
    // Migrated by the built app in its own process: MikroORM loaded here, in Jest's parent
    // process, would leave its global metadata where the test runtimes' MikroORM trips on it.
    const orm = path.join(__dirname, '..', '..', 'dist', 'src', 'db', 'orm.js');
    execFileSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(orm)}).openOrm(process.argv[1]).then((orm) => orm.close(true))`, server.url(TEMPLATE_DATABASE)],
      {
        stdio: 'pipe',
      },
    );
  } catch (err) {
    await server.stop();
    throw err;
  }
  process.env[SERVER_URL_VARIABLE] = base;
  process.env[TEMPLATE_FINGERPRINT_VARIABLE] = await templateFingerprint(base);
}

export async function stopPostgresForTests(): Promise<void> {
  const server = (globalThis as Holder)[KEY];
  delete (globalThis as Holder)[KEY];
  if (server) forgetFreeLists(server.url('').replace(/\/$/, ''));
  await server?.stop();
}
