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
function runOnce(args: string[], env: NodeJS.ProcessEnv & { AQ_BENCH_CPU_FILE: string }, reporter: string): Run {
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--require', reporter, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const wallMs = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  return { wallMs, cpuMs: Number(readFileSync(env.AQ_BENCH_CPU_FILE, 'utf8')) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Cold start of `aq` as a whole process against `node -e 0`, run in turn (A B A B …) so a
 * machine that speeds up or slows down affects both; the ratio is taken pair by pair.
 */
function coldStart(label: string, aqArgs: string[], env: NodeJS.ProcessEnv & { AQ_BENCH_CPU_FILE: string }, reporter: string): BenchRow {
  runOnce([AQ, ...aqArgs], env, reporter);
  runOnce(['-e', '0'], env, reporter);
  const aq: Run[] = [];
  const bare: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    aq.push(runOnce([AQ, ...aqArgs], env, reporter));
    bare.push(runOnce(['-e', '0'], env, reporter));
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

/** `aq exec get_status` on a current database, and `aq help` (no database), as fresh processes, with and without the code cache. */
export async function runCliBench(): Promise<BenchRow[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-bench-cli-'));
  const reporter = path.join(home, 'cpu-reporter.js');
  await writeFile(reporter, CPU_REPORTER);
  const env = { ...process.env, AQ_HOME: home, ANTHROPIC_API_KEY: 'sk-bench-unused', AQ_BENCH_CPU_FILE: path.join(home, 'cpu-ms') };
  try {
    // The first run creates and migrates the database; every measured run finds it current.
    runOnce([AQ, 'exec', 'get_status'], env, reporter);
    // bin/aq.js keeps a V8 code cache (src/cli/compile-cache.ts); the first runs fill it. The
    // last row runs without it, as every start did before it.
    return [
      coldStart('exec get_status', ['exec', 'get_status'], env, reporter),
      coldStart('help', ['help'], env, reporter),
      coldStart('exec get_status, no code cache', ['exec', 'get_status'], { ...env, AQ_NO_COMPILE_CACHE: '1' }, reporter),
    ];
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
