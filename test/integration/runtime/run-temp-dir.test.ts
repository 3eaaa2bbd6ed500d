import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeRunTempDir } from '../../../src/agents/run-temp-dir';
import { makeTempDir } from '../../support/tmp';

/** A real process: `exited` is the id of one that has ended, `running` of one still going (stopped by `end`). */
async function processes(): Promise<{ exited: number; running: number; end: () => Promise<void> }> {
  const done = spawn(process.execPath, ['-e', '0']);
  await once(done, 'exit');
  const alive = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(alive, 'spawn');
  return {
    exited: done.pid!,
    running: alive.pid!,
    end: async () => {
      alive.kill('SIGKILL');
      await once(alive, 'exit');
    },
  };
}

/**
 * Each agent run makes its temporary folder in the app's agent-tmp; a run cut short by a crash
 * leaves its folder behind, and the next run on the machine, of either backend, removes it,
 * leaving those of runs still going (this process's, another worker's) and of other machines alone.
 */
describe("agent runs' temporary folders", () => {
  it('are private to the app, named after their process, and left over only until the next run', async () => {
    const tmp = await makeTempDir('aq-run-temp-');
    const procs = await processes();
    try {
      const root = path.join(tmp.dir, 'agent-tmp');
      const first = await makeRunTempDir(root, 'claude-');
      expect((await stat(root)).mode & 0o777).toBe(0o700);
      expect(path.basename(first).startsWith(`claude-${os.hostname()}-${process.pid}-`)).toBe(true);

      const leftover = path.join(root, `claude-${os.hostname()}-${procs.exited}-crashed`);
      const otherWorker = path.join(root, `claude-${os.hostname()}-${procs.running}-busy`);
      const otherMachine = path.join(root, `claude-elsewhere.example-${procs.exited}-theirs`);
      const otherBackend = path.join(root, `aq-acp-${os.hostname()}-${procs.exited}-acp`);
      for (const dir of [leftover, otherWorker, otherMachine, otherBackend]) {
        await mkdir(path.join(dir, 'claude-0'), { recursive: true });
        await writeFile(path.join(dir, 'claude-0', 'scratch.txt'), 'work in progress');
      }

      const second = await makeRunTempDir(root, 'aq-acp-');
      expect(path.basename(second).startsWith(`aq-acp-${os.hostname()}-${process.pid}-`)).toBe(true);
      expect((await readdir(root)).sort()).toEqual([first, second, otherWorker, otherMachine].map((dir) => path.basename(dir)).sort());
    } finally {
      await procs.end();
      await tmp.cleanup();
    }
  });
});
