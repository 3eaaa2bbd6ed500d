import { parsePlan, type PlanStep } from '../src/plan/parser';
import type { BenchRow } from './table';

const MB = 1024 * 1024;

/** Repeats `unit(i)` after `head` until the text holds at least `bytes` characters. */
function repeatTo(bytes: number, head: string, unit: (i: number) => string): string {
  const parts = [head];
  let size = head.length;
  for (let i = 1; size < bytes; i++) {
    parts.push(unit(i));
    size += parts[parts.length - 1].length;
  }
  return parts.join('');
}

/** Plan shapes: the three strategies of the spec, and inputs made to be slow. */
const SHAPES: Record<string, (bytes: number) => string> = {
  'headings plan': (n) =>
    repeatTo(
      n,
      '# A large plan\n\nBackground prose for the whole plan.\n',
      (i) =>
        `\n## Phase ${i}: Implement **component** number ${i}\n${'Change the module, write tests, and update the docs. '.repeat(6)}\n\n1. first sub-step\n2. second sub-step with \`code\`\n`,
    ),
  'numbered-list plan': (n) =>
    repeatTo(
      n,
      '# Plan\n\nWhat we will do.\n\n',
      (i) => `${i}. Step ${i}: wire the **parser** to module ${i}\n   more detail on this line\n   - a sub-item\n`,
    ),
  'many numbered lines': (n) => repeatTo(n, '', () => '1. x\n'),
  'single-step plan': (n) =>
    repeatTo(n, 'Preface.\n# The Title\n', () => 'Prose for the whole plan, with a * star, a # hash and 1 digit.\n'),
  'many empty headings': (n) => repeatTo(n, '', () => '## \n'),
  'hashes only': (n) => '#'.repeat(n),
  'digits, no dot': (n) => '7'.repeat(n),
  'spaces after ##': (n) => `##${' '.repeat(n)}`,
  'newlines after ##': (n) => `##${'\n'.repeat(n)}`,
  'stars in a heading': (n) => `## ${'*'.repeat(n)}\nbody text long enough`,
  'unclosed emphasis': (n) => `## **${'a'.repeat(n)}\nbody text long enough`,
  'emphasis pairs in a title': (n) => `1. ${'*a'.repeat(n / 2)}\n`,
};

/**
 * Best CPU time of a few parses, in ms. CPU time of this single-threaded call rather than wall
 * time, so that other work on the machine does not show up as a slower parser.
 */
function cpuMs(content: string, maxSteps: number, repeat = 5): number {
  parsePlan(content, { maxSteps });
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const start = process.cpuUsage();
    parsePlan(content, { maxSteps });
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

const mbPerSecond = (content: string, ms: number) => content.length / MB / (Math.max(ms, 0.001) / 1000);

/**
 * Best CPU time, in ms, of building `count` step objects and nothing else: the floor under a
 * parse that keeps every step, since each one is an object that outlives the parse (the young
 * generation copies it before it is promoted).
 */
function stepObjectsMs(count: number, repeat = 5): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const start = process.cpuUsage();
    const steps: PlanStep[] = [];
    for (let hint = 0; hint < count; hint++) steps.push({ title: 'x', description: 'x', priorityHint: hint });
    const used = process.cpuUsage(start);
    if (steps.length !== count) throw new Error('step objects were not all built');
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/**
 * Parse throughput per shape on a 4 MB text: with the default max_steps (as the orchestrator
 * parses), and keeping every step; 1 MB → 4 MB shows that time grows linearly.
 */
export async function runPlanBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, make] of Object.entries(SHAPES)) {
    // Built from parts, then copied, so every shape is parsed as one flat string like a file read.
    const small = Buffer.from(make(MB)).toString();
    const large = Buffer.from(make(4 * MB)).toString();
    const smallMs = cpuMs(small, 20);
    const largeMs = cpuMs(large, 20);
    const allMs = cpuMs(large, Infinity);
    const steps = parsePlan(large, { maxSteps: Infinity }).steps.length;
    // Where a shape has many steps, what their objects alone cost, as MB/s of this text.
    const floor = steps >= 10_000 ? `; its ${steps} step objects alone: ${mbPerSecond(large, stepObjectsMs(steps)).toFixed(0)} MB/s` : '';
    rows.push({
      name: `plan parse, ${name} (4 MB)`,
      value: `${mbPerSecond(large, largeMs).toFixed(0)} MB/s`,
      note:
        `every step kept: ${mbPerSecond(large, allMs).toFixed(0)} MB/s, ${steps} step${steps === 1 ? '' : 's'}; ` +
        `1 → 4 MB: ×${(largeMs / Math.max(smallMs, 0.001)).toFixed(1)} time${floor}`,
    });
  }
  return rows;
}
