import { stopPostgresForTests } from './postgres-setup';

/** Stops the test PostgreSQL server and removes its data (also removed at exit if Jest dies first). */
export default async function globalTeardown(): Promise<void> {
  await stopPostgresForTests();
}
