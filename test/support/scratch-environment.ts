import { readFileSync } from 'node:fs';
import { TestEnvironment } from 'jest-environment-node';
import { tmpdirFor } from './scratch';

/**
 * Jest's Node environment, which first points this worker's TMPDIR at the run's memory folder,
 * or, for a suite marked `@scratch-on-disk`, at the disk temp folder the run started with
 * (scratch.ts). It sets the worker's own environment before the test's copy of it is made, so
 * that `os.tmpdir()`, the processes a test starts and what the test reads all agree.
 */
export default class ScratchEnvironment extends TestEnvironment {
  constructor(...[config, context]: ConstructorParameters<typeof TestEnvironment>) {
    const tmpdir = tmpdirFor(readFileSync(context.testPath, 'utf8'), process.env);
    if (tmpdir) process.env.TMPDIR = tmpdir;
    super(config, context);
  }
}
