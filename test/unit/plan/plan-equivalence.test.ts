import { withoutEmphasis } from '../../../src/plan/emphasis';
import { cleanTitle, extractPlanContext, parsePlan } from '../../../src/plan/parser';
import { pyStrip, pyStripRange } from '../../../src/plan/python-text';
import { EDGE_CASES, planCorpus, seededRandom } from './plan-corpus';
import {
  referenceCleanTitle,
  referenceParsePlan,
  referencePlanContext,
  referenceStrategy,
  referenceStrip,
  referenceWithoutEmphasis,
} from './reference-parser';

// The production parser is written for speed; the reference applies the spec's expressions as
// written. They must agree on every text: the hand-written cases and thousands of random plans.
const CORPUS = planCorpus(20261123, 4000);

/** First differing input, so a failure shows the text rather than a count. */
function firstMismatch<T>(inputs: readonly string[], actual: (text: string) => T, expected: (text: string) => T) {
  for (const input of inputs) {
    const a = actual(input);
    const e = expected(input);
    if (JSON.stringify(a) !== JSON.stringify(e)) return { input, actual: a, expected: e };
  }
  return undefined;
}

describe('the parser agrees with the reference implementation', () => {
  it('covers every strategy with the generated corpus', () => {
    const wins = new Map<string, number>();
    for (const text of CORPUS) {
      const { name } = referenceStrategy(text);
      wins.set(name, (wins.get(name) ?? 0) + 1);
    }
    for (const name of ['headings', 'numbered', 'singleStep', 'none']) {
      expect(wins.get(name) ?? 0).toBeGreaterThan(name === 'none' ? 5 : CORPUS.length / 10);
    }
  });

  it.each([20, 1, 0, -1, 3.5, -0.5, Infinity, -Infinity, NaN])('parsePlan with max_steps %p', (maxSteps) => {
    const mismatch = firstMismatch(
      CORPUS,
      (text) => parsePlan(text, { maxSteps, sourceFile: '/w/plan.md' }),
      (text) => referenceParsePlan(text, maxSteps, '/w/plan.md'),
    );
    expect(mismatch).toBeUndefined();
  });

  it('agrees on large numbered plans, every step kept', () => {
    // The parser has fast paths for plain lines and sizes its step list ahead; a plan of tens of
    // thousands of steps of every kind of numbered line must still give the reference's steps.
    const random = seededRandom(24);
    const items = [
      (i: number) => `${i}. x`,
      (i: number) => `${i}) Step ${i}: wire the **parser** to module ${i}`,
      (i: number) => `${i}.\tTab then text  `,
      (i: number) => `${i}.  Task ${i} - ${'long title '.repeat(15)}`,
      (i: number) => `${i}. ١ Arabic digit first`,
      (i: number) => `${i}. **  **`,
      (i: number) => `${i}.\u3000ideographic space`,
      (i: number) => `${i}. plain words, no cleaning at all`,
      () => '1. x',
    ];
    const bodies = ['', '', '', '   more detail on this line', '   - a sub-item\n   - another', '\n\n', '   \u2028'];
    const lines: string[] = ['# Plan', '', 'What we will do.', ''];
    for (let i = 1; i <= 30_000; i++) {
      lines.push(items[Math.floor(random() * items.length)](i));
      const body = bodies[Math.floor(random() * bodies.length)];
      if (body) lines.push(body);
    }
    const text = lines.join('\n');
    const parsed = parsePlan(text, { maxSteps: Infinity });
    expect(parsed.steps.length).toBeGreaterThan(25_000);
    expect(parsed).toEqual(referenceParsePlan(text, Infinity));
    expect(parsePlan(text, { maxSteps: 20 })).toEqual(referenceParsePlan(text, 20));
  });

  it('keeps every step of a plan of 840k one-line steps, in order', () => {
    const steps = parsePlan('1. x\n'.repeat(840_000), { maxSteps: Infinity }).steps;
    expect(steps).toHaveLength(840_000);
    expect(steps.every((step, i) => step.priorityHint === i && step.title === 'x' && step.description === 'x')).toBe(true);
  });

  it('extractPlanContext', () => {
    expect(firstMismatch(CORPUS, extractPlanContext, referencePlanContext)).toBeUndefined();
  });

  it('cleanTitle, on every line of the corpus and random strings', () => {
    const random = seededRandom(7);
    const alphabet = [
      '*',
      '*',
      's',
      'S',
      'ſ',
      't',
      'p',
      'Step',
      'Task ',
      '1',
      '٣',
      '𝟙',
      '.',
      ')',
      ':',
      '-',
      '—',
      ' ',
      '\t',
      '\u3000',
      '\r',
      'a',
      '😀',
      '\ud800',
    ];
    const random_ = Array.from({ length: 5000 }, () =>
      Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
    const lines = CORPUS.flatMap((text) => text.split('\n'));
    expect(firstMismatch([...lines, ...random_], cleanTitle, referenceCleanTitle)).toBeUndefined();
  });

  it('takes emphasis off as rule 5 does, across line breaks and long runs of stars', () => {
    // Titles are one line, but the rule is written for any text: line breaks end a run.
    const random = seededRandom(5);
    const alphabet = ['*', '*', '*', 'a', ' ', '\n', '😀', '\ud800', '\udc00'];
    const random_ = Array.from({ length: 20_000 }, () =>
      Array.from({ length: Math.floor(random() * 16) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
    const long = [
      '*'.repeat(100_001),
      `${'*'.repeat(1000)}${'a'.repeat(10_000)}`,
      `**${'a'.repeat(10_000)}`,
      '**bold** and *em* '.repeat(2000),
      `${'*a'.repeat(5000)}\n${'*'.repeat(5001)}`,
    ];
    expect(firstMismatch([...random_, ...long, ...EDGE_CASES], withoutEmphasis, referenceWithoutEmphasis)).toBeUndefined();
  });

  it('pyStrip, on every line of the corpus and every UTF-16 code unit', () => {
    const units = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c));
    const padded = units.map((u) => `${u}x${u}`);
    const lines = CORPUS.flatMap((text) => text.split('\n'));
    expect(firstMismatch([...units, ...padded, ...lines, ...EDGE_CASES], pyStrip, referenceStrip)).toBeUndefined();
  });

  it('pyStripRange, on random ranges of the corpus', () => {
    const random = seededRandom(11);
    const mismatch = CORPUS.find((text) => {
      const start = Math.floor(random() * (text.length + 1));
      const end = start + Math.floor(random() * (text.length + 1 - start));
      return pyStripRange(text, start, end) !== referenceStrip(text.slice(start, end));
    });
    expect(mismatch).toBeUndefined();
  });
});
