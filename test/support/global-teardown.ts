import { stopPostgresForTests } from './postgres-setup';
import { removeRunDir } from './run-dir';
import { removeScratch } from './scratch';

/** Stops the test PostgreSQL server and removes its data, the run's folder and its memory folder (also at exit if Jest dies first). */
export default async function globalTeardown(): Promise<void> {
  await stopPostgresForTests();
  await removeRunDir();
  await removeScratch();
}
