import { cleanTitle, extractPlanContext, parsePlan } from '../../../src/plan/parser';
import { pyStrip, pyStripRange } from '../../../src/plan/python-text';
import { EDGE_CASES, planCorpus, seededRandom } from './plan-corpus';
import { referenceCleanTitle, referenceParsePlan, referencePlanContext, referenceStrategy, referenceStrip } from './reference-parser';

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
