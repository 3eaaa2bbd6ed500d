import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Set by the global setup: a folder for the whole Jest run, where fixtures built once are kept for every worker. */
export const RUN_DIR_VARIABLE = 'AQ_TEST_RUN_DIR';

const removeAtExit = () => {
  const dir = process.env[RUN_DIR_VARIABLE];
  if (dir) rmSync(dir, { recursive: true, force: true });
};

/** Makes the run's folder; the workers Jest starts next find it in their environment. */
export async function createRunDir(): Promise<void> {
  process.env[RUN_DIR_VARIABLE] = await mkdtemp(path.join(os.tmpdir(), 'aq-test-run-'));
  process.once('exit', removeAtExit);
}

export async function removeRunDir(): Promise<void> {
  const dir = process.env[RUN_DIR_VARIABLE];
  delete process.env[RUN_DIR_VARIABLE];
  process.removeListener('exit', removeAtExit);
  if (dir) await rm(dir, { recursive: true, force: true });
}
