import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { ForgeReadinessRecorder } from '../../../src/orchestrator/forge-readiness';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** get_status reads the stored answer about gh and glab; asking them never holds it up. */
describe('forge readiness in get_status', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it('answers at once while gh is still thinking, then shows what it said', async () => {
    const release = path.join(rt.home, 'release');
    const gh = path.join(rt.home, 'slow-gh');
    // A gh whose `auth status` answers only once the test lets it.
    await writeFile(gh, `#!/bin/sh\nwhile [ ! -f '${release}' ]; do sleep 0.02; done\nexit 0\n`);
    await chmod(gh, 0o755);
    const recorder = new ForgeReadinessRecorder(
      new GitManager({ ghPath: gh, glabPath: path.join(rt.home, 'no-glab') }).forges,
      rt.db,
      () => undefined,
    );

    recorder.tick();
    expect((await rt.exec('get_status')).forges).toEqual({ github: 'unknown', gitlab: 'unknown' });

    await writeFile(release, '');
    await recorder.idle();
    expect((await rt.exec('get_status')).forges).toEqual({ github: 'ready', gitlab: 'missing', checked_at: expect.any(String) });
  });
});
