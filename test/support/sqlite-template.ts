import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Database } from '../../src/db/database';
import { RUN_DIR_VARIABLE } from './run-dir';

/**
 * Puts a migrated SQLite database at `file` when none is there, copied from one migrated once per
 * Jest run (in the run's folder), as PostgreSQL test databases are copied from a template:
 * migrating a new file costs far more than copying it. Migrating a new file is still what
 * test/integration/db/lazy-migrations.test.ts and orm.test.ts prove. Without the run's folder
 * (or with a file already there) it does nothing, and the runtime migrates as it opens.
 */
export async function copyMigratedSqlite(file: string): Promise<void> {
  const runDir = process.env[RUN_DIR_VARIABLE];
  if (!runDir || existsSync(file)) return;
  const template = path.join(runDir, 'migrated.db');
  if (!existsSync(template)) {
    const building = await mkdtemp(path.join(runDir, 'sqlite-'));
    const db = await Database.open(path.join(building, 'aq.db'));
    // Closing the last connection checkpoints the write-ahead log into the file: the file alone is complete.
    await db.close();
    // Another worker may have made one meanwhile: either is as good.
    await rename(path.join(building, 'aq.db'), template).catch(() => undefined);
    await rm(building, { recursive: true, force: true });
  }
  await mkdir(path.dirname(file), { recursive: true });
  await copyFile(template, file);
}
