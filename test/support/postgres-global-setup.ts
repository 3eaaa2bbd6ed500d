import { prepareRun } from './global-setup';
import { startPostgresForTests } from './postgres-setup';

/**
 * The `postgresql` project's global setup: Jest runs it only when the run includes one of that
 * project's suites, so a run of SQLite suites alone starts no server. The template database is
 * migrated by the built app, hence the run's preparation (the build) first.
 */
export default async function postgresGlobalSetup(): Promise<void> {
  await prepareRun();
  await startPostgresForTests();
}
