import path from 'node:path';
import { loadConfig, type AppConfig } from '../../src/config';
import { Database } from '../../src/db/database';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime';
import type { ProcessController } from '../../src/orchestrator/port';
import { makeTempDir } from './tmp';
import { createTestDatabase, onPostgres } from './postgres-databases';
import { copyMigratedSqlite } from './sqlite-template';
import { wakeWaits } from './wake';

/** Records what restart_daemon / update_and_restart asked of the process, instead of doing it. */
export class RecordingProcessController implements ProcessController {
  readonly signals: NodeJS.Signals[] = [];
  readonly runs: Array<{ file: string; args: string[]; cwd: string }> = [];
  /** Decides what a program run returns; the default runs nothing and succeeds. */
  respond: (file: string, args: string[]) => { code: number; stdout: string; stderr: string } = () => ({
    code: 0,
    stdout: '',
    stderr: '',
  });

  signalSelf(signal: NodeJS.Signals): void {
    this.signals.push(signal);
  }

  async run(file: string, args: string[], options: { cwd: string; timeoutMs: number }) {
    this.runs.push({ file, args, cwd: options.cwd });
    return this.respond(file, args);
  }
}

export interface TestRuntime extends Runtime {
  home: string;
  processController: RecordingProcessController;
  /** Shorthand for handler.execute as a local, trusted caller (like the orchestrator). */
  exec(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  cleanup(): Promise<void>;
}

/**
 * A real runtime (real database, real folders) in a fresh temporary AQ_HOME: an SQLite file in
 * it, or under the `postgresql` Jest project a fresh PostgreSQL database (see postgres-env.ts).
 */
export async function makeTestRuntime(env: Record<string, string> = {}, options: RuntimeOptions = {}): Promise<TestRuntime> {
  const tmp = await makeTempDir('aq-rt-');
  const database = onPostgres() && !env.DATABASE_URL ? await createTestDatabase() : null;
  const config: AppConfig = loadConfig({ AQ_HOME: tmp.dir, ...(database && { DATABASE_URL: database.url }), ...env });
  if (config.database.dialect === 'sqlite') await copyMigratedSqlite(config.database.path);
  const processController = new RecordingProcessController();
  const logs: string[] = [];
  const runtime = await createRuntime(config, {
    process: processController,
    log: (m) => {
      logs.push(m);
      if (process.env.AQ_TEST_LOG) console.error(m);
    },
    ...options,
  });
  runtime.events.subscribe(() => wakeWaits());
  return {
    ...runtime,
    home: tmp.dir,
    processController,
    exec: (name, args = {}) => runtime.handler.executeAny(name, args, { source: 'system' }),
    async cleanup() {
      await runtime.close();
      await database?.drop();
      await tmp.cleanup();
    },
  };
}

/**
 * A Database alone, without a runtime: an SQLite file in `dir`, or under the `postgresql` Jest
 * project a fresh PostgreSQL database. Cleanup closes it (and drops the PostgreSQL database).
 */
export async function openTestDatabase(dir: string): Promise<{ db: Database; cleanup: () => Promise<void> }> {
  const database = onPostgres() ? await createTestDatabase() : null;
  if (!database) await copyMigratedSqlite(path.join(dir, 'aq.db'));
  const db = await Database.open(database ? database.url : path.join(dir, 'aq.db'));
  return {
    db,
    async cleanup() {
      await db.close();
      await database?.drop();
    },
  };
}
