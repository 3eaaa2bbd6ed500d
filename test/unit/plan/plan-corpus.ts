/**
 * Plan texts for comparing the parser with the reference: the spec's shapes and their edge
 * cases by hand, then random mixes from a seeded generator (the same texts on every run).
 */
import { NON_ACTIONABLE_HEADINGS } from '../../../src/plan/parser';

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BODY = 'Implement the thing carefully with tests.';

/** Hand-written cases: every shape in the spec and the inputs of parse-plan.test.ts. */
export const EDGE_CASES: readonly string[] = [
  '',
  ' ',
  '\n',
  '   \n\t\n',
  `# Title\n\n## First\n${BODY}\n\n### Second\n${BODY}\n\n#### Deep\n${BODY}\n`,
  `## A\n   ${'😀'.repeat(19)}   \n## B\n${'😀'.repeat(20)}\n## Overview\n${BODY}\n## C\n${BODY}\n`,
  `## Step 1:\n${BODY}\n## **Done**\n${BODY}\n`,
  `##\n\nHidden title\n${BODY}\n`,
  `# T\r\n\r\n## One\r\n${BODY}\r\n\r\n## Two\r\n${BODY}\r\n`,
  `## One\rTwo\n${BODY}\n`,
  Array.from({ length: 25 }, (_, i) => `## Step ${i + 1}: Item ${i}\n${BODY}\n`).join('\n'),
  [...NON_ACTIONABLE_HEADINGS].map((h) => `## Step 1: ${h.toUpperCase()}\n${BODY}\n`).join('\n'),
  '# Plan\n\nIntro text.\n\n1. First thing\n   more detail\n   - sub item\n2) **Second** thing\n3. Third\n',
  '1. Overview\n2. **  **\n3. Build\n',
  `1. ${'𝔸'.repeat(130)}\n`,
  `1. ${'x'.repeat(120)}\n`,
  `1. ${'x'.repeat(121)}`,
  `## Overview\n${BODY}\n\n1. Alpha\n2. Beta\n3. Gamma\n`,
  '١. Arabic one\n',
  '𝟙. Astral digit one\n𝟚) two\n',
  '# Fix the bug\n\nThe login form crashes.\n',
  'Preface text.\n# The Title\nBody text here.',
  'Preface text.\n# The Title',
  '# The Title\n',
  '#\n\nTitle after blank lines\nbody',
  '# \n',
  '#  \n\n',
  'Just do it.',
  '# Only a title\n\n',
  `# Auth plan\n\nWe use JWT.\n\n## Step 1: Login\n${BODY}\n`,
  '# Nothing actionable\n\nprose',
  '##',
  '## ',
  '##  ',
  '##\n',
  '##\n\n',
  '## \n \n',
  '##\u3000title\nbody body body body body',
  '##\ufefftitle\nbody body body body body',
  '##\u2028title\nbody body body body body',
  '###\ttitle\nbody body body body body',
  '#### not a heading\nbody body body body body',
  '1.x\n1 . x\n1.\n1. \n1.  \n',
  '1)\n\n\nlate title\n',
  '12:\tcolon is not a terminator\n',
  '## **\n## ***\n## * *\n## a*b**c*\n## ****x****\n',
  '1. ſtep 2: long s\n2. Tas\u212A 3: Kelvin sign\n3. STEP 4 - upper\n4. Step 5 no separator\n',
  '1. \ud800 lone surrogate\n2. end \udfff\n',
];

const WHITESPACE = [' ', ' ', ' ', '\t', '\n', ' \n', '\u3000', '\u00a0', '\ufeff', '\x1c', '\x85', '\u2028', '\r', '\v', '\u200b', ''];
const DIGITS = ['1', '2', '12', '007', '٣', '१', '𝟙', '½', 'x', ''];
const TERMINATORS = ['.', ')', '.', ')', ':', '-', '—', ''];
const KEYWORDS = ['Step', 'step', 'STEP', 'Phase', 'part', 'Task', 'ſtep', 'Tas\u212A', 'Stepping', 'Steps'];
const SEPARATORS = [':', '.', ')', '-', '—', '–', ' ', '', ',', ': '];
const WORDS = ['build', 'the', 'parser', 'wire', 'tests', '😀', '𝔸', 'é', '`code`', '**bold**', '*em*', '*', '**', '\r', 'x'];
const BODY_LINES = [
  'Change the module and write tests for it.',
  '   - sub item',
  '   more detail',
  '',
  '',
  ' \t ',
  '\u3000',
  '```',
  '#### deep heading',
  '1.x not an item',
  '😀😀😀😀😀😀😀😀😀😀',
  'short',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function words(random: () => number, max: number): string {
  const n = Math.floor(random() * max);
  return Array.from({ length: n }, () => pick(random, WORDS)).join(pick(random, [' ', ' ', '', '  ']));
}

function title(random: () => number): string {
  const r = random();
  if (r < 0.15) return pick(random, [...NON_ACTIONABLE_HEADINGS]);
  if (r < 0.2) return `${'𝔸é'.repeat(40 + Math.floor(random() * 30))}`;
  let prefix = '';
  if (random() < 0.4) {
    prefix = `${pick(random, KEYWORDS)}${pick(random, WHITESPACE)}${pick(random, DIGITS)}${pick(random, SEPARATORS)}${pick(random, WHITESPACE)}`;
  }
  if (random() < 0.2) prefix += `${pick(random, DIGITS)}${pick(random, TERMINATORS)}${pick(random, WHITESPACE)}`;
  return `${prefix}${words(random, 8)}${random() < 0.1 ? pick(random, WHITESPACE) : ''}`;
}

function line(random: () => number, shape: 'headings' | 'numbered' | 'single' | 'mixed'): string {
  const r = random();
  const headingShare = shape === 'headings' ? 0.35 : shape === 'mixed' ? 0.2 : shape === 'single' ? 0.03 : 0.02;
  const numberedShare = shape === 'numbered' ? 0.4 : shape === 'mixed' ? 0.2 : 0.02;
  if (r < headingShare) {
    const depth = pick(random, [1, 2, 2, 2, 3, 3, 4, 0]);
    return `${'#'.repeat(depth)}${pick(random, WHITESPACE)}${title(random)}`;
  }
  if (r < headingShare + numberedShare) {
    return `${pick(random, DIGITS)}${pick(random, TERMINATORS)}${pick(random, WHITESPACE)}${title(random)}`;
  }
  if (r < 0.85) return pick(random, BODY_LINES);
  return words(random, 14);
}

/** One random plan of the given shape. */
export function randomPlan(random: () => number, shape: 'headings' | 'numbered' | 'single' | 'mixed'): string {
  const count = Math.floor(random() * 30);
  const lines = Array.from({ length: count }, () => line(random, shape));
  let text = lines.join(random() < 0.15 ? '\r\n' : '\n');
  const ending = random();
  if (ending < 0.3) text += '\n';
  else if (ending < 0.4) text += pick(random, ['##', '## ', '##  \n', '##\n\n', '1. ', '1.\n \n', '# ', ' \n\t']);
  return text;
}

/** The hand-written cases followed by `count` random plans, shapes in turn. */
export function planCorpus(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const shapes = ['headings', 'numbered', 'single', 'mixed'] as const;
  return [...EDGE_CASES, ...Array.from({ length: count }, (_, i) => randomPlan(random, shapes[i % shapes.length]))];
}
