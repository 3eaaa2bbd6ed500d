import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DISK_SCRATCH_VARIABLE, hasRoom, MEMORY_SCRATCH_VARIABLE, removeAbandoned, runsPrograms, tmpdirFor } from '../../support/scratch';
import { cleanupsAfterEach } from '../../support/tmp';

describe('the test run’s temporary files (scratch.ts)', () => {
  const cleanups = cleanupsAfterEach();
  const env = { [MEMORY_SCRATCH_VARIABLE]: '/dev/shm/aq-scratch-1-x', [DISK_SCRATCH_VARIABLE]: '/tmp' };

  it('gives a suite the memory folder, and one marked @scratch-on-disk the disk folder', () => {
    expect(tmpdirFor("import os from 'node:os';\n", env)).toBe('/dev/shm/aq-scratch-1-x');
    expect(tmpdirFor('// @scratch-on-disk: its agent cannot see /dev/shm\nimport os from "node:os";\n', env)).toBe('/tmp');
    // A mention is not a marker: the line must say why.
    expect(tmpdirFor('// @scratch-on-disk:\n', env)).toBe('/dev/shm/aq-scratch-1-x');
    // A run that kept the system's temp folder leaves every suite's as it is.
    expect(tmpdirFor('// @scratch-on-disk: why\n', {})).toBeUndefined();
  });

  it('this suite’s temporary files are where the run chose', () => {
    const memory = process.env[MEMORY_SCRATCH_VARIABLE];
    if (memory) expect(os.tmpdir()).toBe(memory);
    else expect(process.env[DISK_SCRATCH_VARIABLE]).toBeUndefined();
  });

  it('takes only a memory filesystem with room to spare', () => {
    // procfs is no memory filesystem for files, however much room it shows.
    expect(hasRoom('/proc', 0)).toBe(false);
    expect(hasRoom(path.join(os.tmpdir(), 'no-such-folder'), 0)).toBe(false);
    expect(hasRoom(os.tmpdir(), Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('takes only a folder where programs run', async () => {
    expect(runsPrograms(await cleanups.tempDir('aq-scratch-probe-'))).toBe(true);
    // Nor one it cannot write a program into.
    expect(runsPrograms(path.join(os.tmpdir(), 'no-such-folder', 'below'))).toBe(false);
  });

  it('removes the memory folders of runs that died, and no other folder', async () => {
    const root = await cleanups.tempDir('aq-scratch-root-');
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const dead = path.join(root, `aq-scratch-${ended.stdout}-abc`);
    const living = path.join(root, `aq-scratch-${process.pid}-def`);
    const other = path.join(root, 'aq-scratch-notes');
    for (const dir of [dead, living, other]) await mkdir(path.join(dir, 'inside'), { recursive: true });
    removeAbandoned(root);
    expect([dead, living, other].map(existsSync)).toEqual([false, true, true]);
  });
});
