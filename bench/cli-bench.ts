import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './table';

// bench/ compiles to dist/bench, so the project root is two levels up.
const AQ = path.join(__dirname, '..', '..', 'bin', 'aq.js');
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

/** One whole-process run; throws when it fails. CPU time is steadier than wall time on a busy machine. */
function runOnce(args: string[], env: BenchEnv, reporter: string): Run {
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--require', reporter, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const wallMs = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  return { wallMs, cpuMs: Number(readFileSync(env.AQ_BENCH_CPU_FILE, 'utf8')) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

type BenchEnv = NodeJS.ProcessEnv & { AQ_BENCH_CPU_FILE: string };

/**
 * Cold start of `aq` as a whole process against `node -e 0`, run in turn (A B A B …) so a
 * machine that speeds up or slows down affects both; the ratio is taken pair by pair. `envFor`
 * gives each run its environment (a new AQ_HOME for first runs).
 */
async function coldStart(label: string, aqArgs: string[], envFor: () => Promise<BenchEnv>, reporter: string): Promise<BenchRow> {
  runOnce([AQ, ...aqArgs], await envFor(), reporter);
  runOnce(['-e', '0'], await envFor(), reporter);
  const aq: Run[] = [];
  const bare: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    aq.push(runOnce([AQ, ...aqArgs], await envFor(), reporter));
    bare.push(runOnce(['-e', '0'], await envFor(), reporter));
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
 * `aq exec get_status` with zero configuration as fresh processes: the first run on a new
 * AQ_HOME (creates and migrates the database) and a repeat run (finds it current), then `aq
 * help` (no database), and the repeat run without the V8 code cache, without the bundle and
 * with the caller's whole environment.
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
  try {
    // Fills the code cache (node_modules/.cache/aq) and creates the database the repeat runs find.
    runOnce([AQ, 'exec', 'get_status'], env, reporter);
    return [
      await coldStart('exec get_status, first run (new AQ_HOME)', ['exec', 'get_status'], newHome, reporter),
      await coldStart('exec get_status, repeat run', ['exec', 'get_status'], same, reporter),
      await coldStart('help', ['help'], same, reporter),
      await coldStart(
        'exec get_status, repeat run, no code cache',
        ['exec', 'get_status'],
        async () => ({ ...env, AQ_NO_COMPILE_CACHE: '1' }),
        reporter,
      ),
      await coldStart(
        'exec get_status, repeat run, unbundled',
        ['exec', 'get_status'],
        async () => ({ ...env, AQ_NO_BUNDLE: '1' }),
        reporter,
      ),
      // As the figures before 2026-11-23 were taken: with this shell's whole environment, where
      // NODE_EXTRA_CA_CERTS makes every node process (node -e 0 too) read a CA bundle at start.
      await coldStart(
        'exec get_status, repeat run, inherited environment',
        ['exec', 'get_status'],
        async () => ({ ...process.env, ...env }),
        reporter,
      ),
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
