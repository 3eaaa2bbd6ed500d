import { markdownTable, type BenchRow } from './table';
import { runPlanBench } from './plan-bench';
import { runCommandsBench } from './commands-bench';
import { runSchedulerBench } from './scheduler-bench';
import { runSlackBench } from './slack-bench';
import { runCliBench } from './cli-bench';
import { runFleetBench, runFleetThroughputBench, runFleetThroughputPostgresBench } from './fleet-bench';
import { runPostgresCommandsBench } from './postgres-bench';
import { runPostgresReadsBench, runReadsBench } from './reads-bench';
import { runLandingBench } from './landing-bench';
import { runRadarBench } from './radar-bench';

type Suite = { name: string; run: () => Promise<BenchRow[]> };

const SUITES: Suite[] = [
  { name: 'plan', run: runPlanBench },
  { name: 'commands', run: () => runCommandsBench() },
  { name: 'commands-postgresql', run: () => runPostgresCommandsBench() },
  { name: 'reads', run: () => runReadsBench() },
  { name: 'reads-postgresql', run: () => runPostgresReadsBench() },
  { name: 'scheduler', run: runSchedulerBench },
  { name: 'slack', run: () => runSlackBench() },
  { name: 'cli', run: runCliBench },
  { name: 'fleet', run: runFleetBench },
  { name: 'fleet-throughput', run: runFleetThroughputBench },
  { name: 'fleet-throughput-postgresql', run: () => runFleetThroughputPostgresBench() },
  { name: 'claims-postgresql', run: () => runFleetThroughputPostgresBench('claims') },
  { name: 'wake-postgresql', run: () => runFleetThroughputPostgresBench('wake') },
  { name: 'landing', run: runLandingBench },
  { name: 'radar', run: runRadarBench },
];

/** `npm run bench [suite…]`: prints every figure as one Markdown table. */
async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const rows: BenchRow[] = [];
  for (const suite of SUITES) {
    if (only.length > 0 && !only.includes(suite.name)) continue;
    process.stderr.write(`running ${suite.name}…\n`);
    rows.push(...(await suite.run()));
  }
  process.stdout.write(`${markdownTable(rows)}\n`);
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
