import { performance } from 'node:perf_hooks';
import { parsePlan } from '../src/plan/parser';
import type { BenchRow } from './table';

function timeParse(content: string, repeat = 3): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    parsePlan(content);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function realisticPlan(targetBytes: number): string {
  const parts = ['# A large plan\n\nBackground prose for the whole plan.\n'];
  let i = 0;
  let size = parts[0].length;
  while (size < targetBytes) {
    const section =
      `\n## Phase ${++i}: Implement **component** number ${i}\n` +
      'Change the module, write tests, and update the docs. '.repeat(6) +
      '\n\n1. first sub-step\n2. second sub-step with `code`\n';
    parts.push(section);
    size += section.length;
  }
  return parts.join('');
}

const ADVERSARIAL: Record<string, (n: number) => string> = {
  'hashes only': (n) => '#'.repeat(n),
  'stars in a heading': (n) => `## ${'*'.repeat(n)}\nbody text long enough`,
  'unclosed emphasis': (n) => `## **${'a'.repeat(n)}\nbody text long enough`,
  'digits, no dot': (n) => '7'.repeat(n),
  'spaces after ##': (n) => `##${' '.repeat(n)}`,
  'newlines after ##': (n) => `##${'\n'.repeat(n)}`,
  'many empty headings': (n) => '## \n'.repeat(Math.floor(n / 4)),
  'many numbered lines': (n) => '1. x\n'.repeat(Math.floor(n / 5)),
};

/** Parse throughput on a 1 MB plan, and proof that adversarial input stays linear. */
export async function runPlanBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const plan = realisticPlan(1024 * 1024);
  const ms = timeParse(plan);
  rows.push({
    name: 'plan parse, 1 MB realistic plan',
    value: `${ms.toFixed(1)} ms`,
    note: `${(plan.length / 1024 / 1024 / (ms / 1000)).toFixed(1)} MB/s, ${parsePlan(plan, { maxSteps: 1e9 }).steps.length} steps`,
  });
  for (const [name, make] of Object.entries(ADVERSARIAL)) {
    const small = timeParse(make(100_000));
    const large = timeParse(make(400_000));
    rows.push({
      name: `plan parse, adversarial: ${name}`,
      value: `${small.toFixed(1)} → ${large.toFixed(1)} ms`,
      note: `100k → 400k chars: ×${(large / Math.max(small, 0.01)).toFixed(1)} time for ×4 input (linear ≈ 4)`,
    });
  }
  return rows;
}
