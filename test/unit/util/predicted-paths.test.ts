import { predictedPaths } from '../../../src/util/predicted-paths';

describe('predictedPaths: files a task names', () => {
  it('finds relative file paths in prose, code spans, quotes and lists', () => {
    const text = [
      'Fix the parser in `src/plan/parser.ts` and update README.md.',
      '- also "./docs/setup.md", (test/unit/x.test.ts);',
      'Touch package.json, then src/a.ts: done.',
    ].join('\n');
    expect(predictedPaths(text)).toEqual([
      'README.md',
      'docs/setup.md',
      'package.json',
      'src/a.ts',
      'src/plan/parser.ts',
      'test/unit/x.test.ts',
    ]);
  });

  it('ignores URLs, absolute paths, versions, abbreviations and plain words', () => {
    expect(
      predictedPaths('See https://example.com/a/b.html, /etc/hosts.conf, v1.2.3, 1.2.3, e.g. this, i.e. that, src/ and the Makefile.'),
    ).toEqual([]);
  });
});
