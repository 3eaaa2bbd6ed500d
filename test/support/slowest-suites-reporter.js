const path = require('node:path');

/**
 * The slowest suites of a run and how long each took, one line each, slowest first. `results` is
 * Jest's aggregated result; a suite's time is its file's wall time in its worker.
 */
function slowestSuites(results, rootDir, count = 10) {
  const suites = results.testResults
    .map((suite) => ({
      seconds: (suite.perfStats.end - suite.perfStats.start) / 1000,
      project: suite.displayName?.name ?? '',
      file: path.relative(rootDir, suite.testFilePath).split(path.sep).join('/'),
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
  if (suites.length === 0) return '';
  const projectWidth = Math.max(...suites.map((s) => s.project.length));
  const lines = suites.map((s) => `  ${s.seconds.toFixed(1).padStart(6)} s  ${s.project.padEnd(projectWidth)}  ${s.file}`);
  const heading = suites.length === 1 ? 'Slowest suite:' : `Slowest ${suites.length} suites:`;
  return `${heading}\n${lines.join('\n')}\n`;
}

/** A Jest reporter, beside the default one, that ends every run with its slowest suites (on stderr, as Jest's own summary). */
class SlowestSuitesReporter {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.count = options.count ?? 10;
  }

  onRunComplete(_contexts, results) {
    const text = slowestSuites(results, this.rootDir, this.count);
    if (text) process.stderr.write(`\n${text}`);
  }
}

module.exports = SlowestSuitesReporter;
module.exports.slowestSuites = slowestSuites;
