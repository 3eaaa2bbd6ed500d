import path from 'node:path';

// The reporter is plain JavaScript because Jest loads it untransformed.
const { slowestSuites } = require('../../support/slowest-suites-reporter') as {
  slowestSuites: (results: unknown, rootDir: string, count?: number) => string;
};

const root = path.join(path.sep, 'repo');

function suite(file: string, project: string, seconds: number) {
  return { testFilePath: path.join(root, file), displayName: { name: project }, perfStats: { start: 1000, end: 1000 + seconds * 1000 } };
}

describe('the slowest-suites reporter', () => {
  it('lists the slowest suites first, with their project and time, and no more than asked', () => {
    const results = {
      testResults: [
        suite('test/unit/a.test.ts', 'sqlite', 1.2),
        suite('test/e2e/b.test.ts', 'postgresql', 42.04),
        suite('test/integration/c.test.ts', 'sqlite', 7.5),
      ],
    };
    expect(slowestSuites(results, root, 2)).toBe(
      ['Slowest 2 suites:', '    42.0 s  postgresql  test/e2e/b.test.ts', '     7.5 s  sqlite      test/integration/c.test.ts', ''].join(
        '\n',
      ),
    );
  });

  it('names a lone suite in the singular', () => {
    expect(slowestSuites({ testResults: [suite('test/unit/a.test.ts', 'sqlite', 0.25)] }, root)).toBe(
      'Slowest suite:\n     0.3 s  sqlite  test/unit/a.test.ts\n',
    );
  });

  it('says nothing when no suite ran', () => {
    expect(slowestSuites({ testResults: [] }, root)).toBe('');
  });
});
