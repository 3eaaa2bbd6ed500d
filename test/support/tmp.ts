import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh temporary directory, removed by the returned cleanup. */
export async function makeTempDir(prefix = 'aq-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A fresh temporary directory outside the system's temp folder (in the checkout's ignored
 * `tmp/`), for what must be seen by commands confined with a private /tmp of their own.
 */
export async function makeTempDirOutsideTmp(prefix = 'aq-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const parent = path.join(__dirname, '..', '..', 'tmp');
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(path.join(parent, prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Cleanups a suite's tests register as they go, run after each test, the last registered first.
 * Call it in a `describe` block: it adds the `afterEach` that runs them.
 */
export function cleanupsAfterEach(): {
  add(...cleanups: Array<() => Promise<unknown>>): void;
  /** A fresh temporary directory, removed after the test. */
  tempDir(prefix?: string): Promise<string>;
} {
  let cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    const due = cleanups.reverse();
    cleanups = [];
    for (const cleanup of due) await cleanup();
  });
  const add = (...more: Array<() => Promise<unknown>>) => {
    cleanups.push(...more);
  };
  return {
    add,
    async tempDir(prefix) {
      const made = await makeTempDir(prefix);
      add(made.cleanup);
      return made.dir;
    },
  };
}
