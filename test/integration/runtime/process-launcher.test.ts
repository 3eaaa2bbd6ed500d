import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { folderMissing, launch, type Launched } from '../../../src/util/process-launcher';
import { waitFor } from '../orchestrator/harness';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sh = (script: string, options: Partial<Parameters<typeof launch>[2]> = {}, signal?: AbortSignal) =>
  launch('/bin/sh', ['-c', script], { cwd: os.tmpdir(), env, ...options }, signal);

/** The pid of the process that started the program: this one, or the launcher. */
async function starter(): Promise<number> {
  return Number((await sh('echo $PPID')).stdout.toString().trim());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Both ways of starting a program must behave the same: each case runs before and after the switch. */
async function behaves(): Promise<void> {
  const echoed = await sh('printf out; printf err >&2; exit 3');
  expect(echoed).toMatchObject({ code: 3, signal: null, timedOut: false });
  expect([echoed.stdout.toString(), echoed.stderr.toString()]).toEqual(['out', 'err']);
  expect((await sh('cat', { input: 'from stdin ✓' })).stdout.toString()).toBe('from stdin ✓');
  const big = await sh('head -c 3000000 /dev/zero | tr "\\0" x');
  expect(big.stdout.length).toBe(3_000_000);
  expect(big.stdout.every((b) => b === 120)).toBe(true);
  const capped = await sh('head -c 100000 /dev/zero; echo done >&2', { maxOutput: 1000 });
  expect([capped.code, capped.stdout.length, capped.stderr.toString()]).toEqual([0, 1000, 'done\n']);
  expect(capped.overflowed).toBeUndefined();
  // A program that would print for ever is ended once its output reaches the limit.
  const endless = await launch('yes', ['aq'], { cwd: os.tmpdir(), env, maxOutput: 5000, stopAtMaxOutput: true, timeoutMs: 20_000 });
  expect(endless).toMatchObject({ overflowed: true, timedOut: false, signal: 'SIGTERM' });
  expect(endless.stdout.toString()).toBe('aq\n'.repeat(2000).slice(0, 5000));
  const silent = await sh('echo started; sleep 30', { silenceMs: 300 });
  expect(silent).toMatchObject({ timedOut: true, signal: 'SIGKILL', code: null });
  expect(silent.stdout.toString()).toBe('started\n');
  const chatty = await sh('while true; do echo tick; sleep 0.05; done', { silenceMs: 10_000, timeoutMs: 400 });
  expect(chatty).toMatchObject({ timedOut: true, code: null });
  const missing = await launch('no-such-program-aq', [], { cwd: os.tmpdir(), env });
  expect(missing).toMatchObject({ code: null, startError: { code: 'ENOENT' } });
  const nowhere = path.join(os.tmpdir(), 'aq-no-such-folder', 'x');
  expect((await launch('git', ['status'], { cwd: nowhere, env })).startError?.code).toBe('ENOENT');
  expect(await folderMissing(nowhere)).toBe(true);
  expect(await folderMissing(os.tmpdir())).toBe(false);
  const controller = new AbortController();
  const stopped = sh('sleep 30', {}, controller.signal);
  setImmediate(() => controller.abort());
  expect(await stopped).toMatchObject({ signal: 'SIGTERM', code: null });
}

describe('the process launcher', () => {
  it('starts the first programs itself, then through a launcher process, with the same results; the launcher goes when idle', async () => {
    // A fresh module: this process's first starts are direct.
    expect(await starter()).toBe(process.pid);
    await behaves();
    // By now the switch has happened.
    const launcherPid = await starter();
    expect(launcherPid).not.toBe(process.pid);
    expect(alive(launcherPid)).toBe(true);
    await behaves();
    expect(await starter()).toBe(launcherPid);

    // Many at once: each answer is its own program's.
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => sh(`printf ${i}; sleep 0.0${i % 10}`)));
    expect(many.map((r: Launched) => r.stdout.toString())).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));

    // Left idle, the launcher is let go (it holds nothing open); the next program starts another.
    await waitFor(async () => !alive(launcherPid), 30_000, 'the idle launcher to leave');
    const next = await starter();
    expect([next === process.pid, next === launcherPid]).toEqual([false, false]);
  });

  it('a launcher killed under a running program: that program is reported as not started, and later ones start directly', async () => {
    // The earlier test let its launcher go; this one's starts through a new one.
    const launcherPid = await starter();
    expect(launcherPid).not.toBe(process.pid);
    const running = sh('sleep 5');
    process.kill(launcherPid, 'SIGKILL');
    expect(await running).toMatchObject({ code: null, startError: { code: 'ELAUNCHER' } });
    expect(await starter()).toBe(process.pid);
    expect((await sh('printf still')).stdout.toString()).toBe('still');
  });

  it('a caller killed while its programs run through the launcher: they finish, then the launcher leaves', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'aq-launch-'));
    // The built module (global setup builds dist/), in a caller of its own that starts nine
    // programs: the ninth goes through the launcher, waits for the test's signal, then writes
    // (by a rename, so that the file the test waits for is whole when it appears).
    const built = path.join(__dirname, '..', '..', '..', 'dist', 'src', 'util', 'process-launcher.js');
    const caller = `
      const { launch } = require(${JSON.stringify(built)});
      (async () => {
        const env = { PATH: process.env.PATH };
        for (let i = 0; i < 8; i++) await launch('/bin/true', [], { cwd: '/', env });
        launch('/bin/sh', ['-c', 'echo $PPID > launcher; while [ ! -f go ]; do sleep 0.02; done; echo finished > done.part && mv done.part done'], { cwd: ${JSON.stringify(dir)}, env });
        setInterval(() => undefined, 1000);
      })();`;
    const child = spawn(process.execPath, ['-e', caller], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const launcherFile = path.join(dir, 'launcher');
    const launcherPid = await waitFor(
      async () => (existsSync(launcherFile) && Number((await readFile(launcherFile, 'utf8')).trim())) || null,
      30_000,
      'the program to start through the launcher',
    );
    expect(launcherPid).not.toBe(child.pid);
    child.kill('SIGKILL');
    await exited;
    // The caller is gone; the launcher waits for its program, which goes on when told.
    expect(alive(launcherPid)).toBe(true);
    await rm(launcherFile);
    await writeFile(path.join(dir, 'go'), '');
    await waitFor(async () => existsSync(path.join(dir, 'done')), 30_000, 'the program to finish');
    expect(await readFile(path.join(dir, 'done'), 'utf8')).toBe('finished\n');
    await waitFor(async () => !alive(launcherPid), 30_000, 'the launcher to leave');
    await rm(dir, { recursive: true, force: true });
  });

  it('a program that cannot start in a folder someone deleted is told as such, not as a crash', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'aq-launch-'));
    await rm(dir, { recursive: true });
    const run = await launch('/bin/sh', ['-c', 'true'], { cwd: dir, env });
    expect(run.startError?.code).toBe('ENOENT');
    expect(await folderMissing(dir)).toBe(true);
  });
});
