import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FakeSlack } from '../test/support/fake-slack';
import type { BenchRow } from './table';
import { freePort } from '../test/support/free-port';

// bench/ compiles to dist/bench, so the project root is two levels up.
const ROOT = path.join(__dirname, '..', '..');
/** `aq` as installed (package.json bin): the shell script that starts from the startup snapshot. */
const AQ = [path.join(ROOT, 'bin', 'aq')];
/** The Node entry bin/aq falls back to: the bundle with its code cache, or the unbundled build. */
const AQ_JS = [process.execPath, path.join(ROOT, 'bin', 'aq.js')];
const NODE = [process.execPath];
const RUNS = 15;

/** Preloaded into each run: writes the process's own CPU time (all threads) to a file at exit. */
const CPU_REPORTER = `process.on('exit', () => {
  const u = process.cpuUsage();
  require('fs').writeFileSync(process.env.AQ_BENCH_CPU_FILE, String((u.user + u.system) / 1000));
});`;

interface Run {
  wallMs: number;
  cpuMs: number;
}

/**
 * One whole-process run; throws when it fails. CPU time is steadier than wall time on a busy
 * machine. The reporter is preloaded through NODE_OPTIONS, which reaches Node also behind
 * bin/aq; its CPU is Node's alone (bin/aq's shell and readlink, ~1 ms, show only in wall time).
 */
function runOnce(command: string[], env: BenchEnv, reporter: string): Run {
  const start = performance.now();
  const result = spawnSync(command[0], command.slice(1), {
    env: { ...env, NODE_OPTIONS: `--require ${reporter}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wallMs = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  return { wallMs, cpuMs: Number(readFileSync(env.AQ_BENCH_CPU_FILE, 'utf8')) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

type BenchEnv = NodeJS.ProcessEnv & { AQ_BENCH_CPU_FILE: string };

/**
 * Cold start of `aq` as a whole process against `node -e 0`, run in turn (A B A B …) so a
 * machine that speeds up or slows down affects both; the ratio is taken pair by pair. `envFor`
 * gives each run its environment (a new AQ_HOME for first runs).
 */
async function coldStart(label: string, aqCommand: string[], envFor: () => Promise<BenchEnv>, reporter: string): Promise<BenchRow> {
  runOnce(aqCommand, await envFor(), reporter);
  runOnce([...NODE, '-e', '0'], await envFor(), reporter);
  const aq: Run[] = [];
  const bare: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    aq.push(runOnce(aqCommand, await envFor(), reporter));
    bare.push(runOnce([...NODE, '-e', '0'], await envFor(), reporter));
  }
  const ratio = (key: keyof Run) => median(aq.map((a, i) => a[key] / bare[i][key])).toFixed(1);
  return {
    name: `aq cold start: ${label}`,
    value: `${median(aq.map((r) => r.wallMs)).toFixed(0)} ms wall, ${median(aq.map((r) => r.cpuMs)).toFixed(0)} ms CPU`,
    note:
      `node -e 0: ${median(bare.map((r) => r.wallMs)).toFixed(0)} ms wall, ${median(bare.map((r) => r.cpuMs)).toFixed(0)} ms CPU; ` +
      `×${ratio('wallMs')} wall, ×${ratio('cpuMs')} CPU (medians of ${RUNS} pairs)`,
  };
}

/**
 * The real app (dist/src/app.js, against a fake Slack) as its own process on `env`'s AQ_HOME,
 * once it answers on its socket: the runs are synchronous, so it cannot share this process.
 */
async function startAppProcess(env: BenchEnv, slack: FakeSlack): Promise<{ env: BenchEnv; app: ChildProcess }> {
  // The app's settings, which `aq` must share to be answered (as both read one .env in real use).
  const appEnv = {
    ...env,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: 'bench-secret',
    SLACK_API_URL: slack.apiUrl,
    PORT: String(await freePort()),
  };
  const app = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'app.js')], {
    env: appEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  app.stdout?.on('data', (chunk) => (output += chunk));
  while (!output.includes('Agent Queue is running')) {
    if (app.exitCode !== null) throw new Error(`the app exited ${app.exitCode} before it was running`);
    await once(app.stdout!, 'data');
  }
  const client = path.join(ROOT, 'dist', 'src', 'cli', 'app-socket-client.js');
  const asked = spawnSync(process.execPath, [client, 'exec', 'get_status'], { env: appEnv, stdio: 'ignore' });
  if (asked.status !== 0) {
    app.kill('SIGTERM');
    throw new Error(`the app did not answer aq exec get_status on its socket (client exited ${asked.status})`);
  }
  return { env: appEnv, app };
}

/** The repeat run while the app runs on the same AQ_HOME: answered over $AQ_HOME/aq.sock. */
async function throughTheApp(env: BenchEnv, reporter: string): Promise<BenchRow> {
  const slack = await FakeSlack.start();
  const { env: appEnv, app } = await startAppProcess(env, slack);
  try {
    const load = os.loadavg()[0];
    const row = await coldStart(
      'exec get_status, repeat run, app running (aq.sock)',
      [...AQ, 'exec', 'get_status'],
      async () => appEnv,
      reporter,
    );
    return { ...row, note: `${row.note}; load average ${load.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}` };
  } finally {
    const exited = once(app, 'exit');
    app.kill('SIGTERM');
    await exited;
    await slack.close();
  }
}

/**
 * `aq exec get_status` with zero configuration as fresh processes, through `aq` as installed
 * (bin/aq, the startup snapshot): the first run on a new AQ_HOME (creates and migrates the
 * database), a repeat run (finds it current) and `aq help` (no database); then the repeat run
 * through each fallback (bin/aq.js: the bundle with and without the V8 code cache, unbundled),
 * and with the caller's whole environment.
 */
export async function runCliBench(): Promise<BenchRow[]> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-cli-'));
  const reporter = path.join(work, 'cpu-reporter.js');
  await writeFile(reporter, CPU_REPORTER);
  const home = path.join(work, 'home');
  const env: BenchEnv = { PATH: process.env.PATH, AQ_HOME: home, AQ_BENCH_CPU_FILE: path.join(work, 'cpu-ms') };
  const same = async () => env;
  let homes = 0;
  const newHome = async () => ({ ...env, AQ_HOME: path.join(work, `new-home-${++homes}`) });
  const status = ['exec', 'get_status'];
  try {
    // Fills the code cache (node_modules/.cache/aq) and creates the database the repeat runs find.
    runOnce([...AQ_JS, ...status], env, reporter);
    return [
      await coldStart('exec get_status, first run (new AQ_HOME)', [...AQ, ...status], newHome, reporter),
      await coldStart('exec get_status, repeat run', [...AQ, ...status], same, reporter),
      await coldStart('help', [...AQ, 'help'], same, reporter),
      await throughTheApp(env, reporter),
      await coldStart('exec get_status, repeat run, no snapshot (bin/aq.js)', [...AQ_JS, ...status], same, reporter),
      await coldStart(
        'exec get_status, repeat run, no snapshot, no code cache',
        [...AQ_JS, ...status],
        async () => ({ ...env, AQ_NO_COMPILE_CACHE: '1' }),
        reporter,
      ),
      await coldStart(
        'exec get_status, repeat run, unbundled',
        [...AQ_JS, ...status],
        async () => ({ ...env, AQ_NO_BUNDLE: '1' }),
        reporter,
      ),
      // With this shell's whole environment, where NODE_EXTRA_CA_CERTS makes every node process
      // (node -e 0 too) read a CA bundle at start: as the figures before 2026-11-23 were taken.
      await coldStart(
        'exec get_status, first run (new AQ_HOME), inherited environment',
        [...AQ, ...status],
        async () => ({ ...process.env, ...(await newHome()) }),
        reporter,
      ),
      await coldStart(
        'exec get_status, repeat run, inherited environment',
        [...AQ, ...status],
        async () => ({ ...process.env, ...env }),
        reporter,
      ),
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
