import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRunDir, RUN_DIR_VARIABLE } from './run-dir';
import { chooseScratch } from './scratch';

/**
 * Builds dist/ when a source changed (as `npm start` does) so tests can run the real `bin/aq.js`.
 * Type errors do not stop the build here (tsc still emits); `npm test` type-checks the whole tree
 * before Jest runs. Then chooses where the run's temporary files go (scratch.ts) and makes the
 * run's folder for shared fixtures there (run-dir.ts). Once per run:
 * the PostgreSQL project's setup (postgres-global-setup.ts) calls it first too, and Jest may run
 * that one before this. The teardown removes the folder, which makes a new run prepare again.
 */
export async function prepareRun(): Promise<void> {
  if (process.env[RUN_DIR_VARIABLE]) return;
  const root = path.join(__dirname, '..', '..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')], {
    cwd: root,
    encoding: 'utf8',
  });
  if (!existsSync(path.join(root, 'dist', 'src', 'cli.js'))) {
    throw new Error(`Could not build dist/ for the CLI tests:\n${result.stdout}${result.stderr}`);
  }
  await chooseScratch();
  await createRunDir();
}

export default prepareRun;
