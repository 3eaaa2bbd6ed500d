import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startPostgresForTests } from './postgres-setup';
import { createRunDir } from './run-dir';

/**
 * Builds dist/ when a source changed (as `npm start` does) so tests can run the real `bin/aq.js`.
 * Type errors do not stop the build here (tsc still emits); `npm test` type-checks the whole tree
 * before Jest runs. Then makes the run's folder for shared fixtures (run-dir.ts), and starts the
 * test PostgreSQL server when the run includes PostgreSQL tests.
 */
export default async function globalSetup(globalConfig: { projects?: unknown[]; selectProjects?: string[] }): Promise<void> {
  const root = path.join(__dirname, '..', '..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')], {
    cwd: root,
    encoding: 'utf8',
  });
  if (!existsSync(path.join(root, 'dist', 'src', 'cli.js'))) {
    throw new Error(`Could not build dist/ for the CLI tests:\n${result.stdout}${result.stderr}`);
  }
  await createRunDir();
  const selected = globalConfig.selectProjects;
  if (!selected || selected.includes('postgresql')) await startPostgresForTests();
}
