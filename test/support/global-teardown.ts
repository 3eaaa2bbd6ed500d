import { stopPostgresForTests } from './postgres-setup';
import { removeRunDir } from './run-dir';

/** Stops the test PostgreSQL server and removes its data and the run's folder (also at exit if Jest dies first). */
export default async function globalTeardown(): Promise<void> {
  await stopPostgresForTests();
  await removeRunDir();
}
