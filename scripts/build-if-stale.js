#!/usr/bin/env node
// Builds dist/ (scripts/transpile.js) only when a source is newer than the last build: `npm start`
// then costs a few milliseconds of stat calls instead of a build every time. After a build, and
// whenever npm changed node_modules since, the CLI is bundled again (scripts/bundle-cli.js),
// which also builds its startup snapshot (scripts/build-snapshot.js).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const entry = path.join(root, 'dist', 'src', 'app.js');
const SOURCES = ['src', 'listeners', 'bench', path.join('test', 'support'), 'tsconfig.json', path.join('scripts', 'swc-options.js')];

/** The newest modification time under `target`; folders count, so a deleted file shows too. */
function newest(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  let time = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(target)) time = Math.max(time, newest(path.join(target, name)));
  }
  return time;
}

function stampTime() {
  try {
    return fs.statSync(stamp).mtimeMs;
  } catch {
    return 0;
  }
}

function modified(file) {
  return fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** The CLI bundle, when it is missing or older than the TypeScript build or the npm install. */
async function bundleIfStale() {
  const bundle = path.join(root, 'dist', 'aq-cli.js');
  const inputs = [stamp, path.join(root, 'node_modules', '.package-lock.json')];
  if (fs.existsSync(bundle) && inputs.every((f) => modified(f) <= modified(bundle))) return snapshotIfStale(bundle);
  const bundler = path.join(__dirname, 'bundle-cli.js');
  // A project without the bundler (or without esbuild) runs the CLI unbundled.
  if (!fs.existsSync(bundler)) return;
  try {
    if (await require(bundler).bundleCli()) warmCodeCache();
  } catch (err) {
    process.stderr.write(`Bundling the CLI failed, so aq runs unbundled (slower to start): ${err.message}\n`);
  }
}

/**
 * The CLI's startup snapshot (scripts/build-snapshot.js), when it is missing, older than the
 * bundle, or made by another Node binary (its stamp names the one).
 */
function snapshotIfStale(bundle) {
  const builder = path.join(__dirname, 'build-snapshot.js');
  if (!fs.existsSync(builder)) return;
  const { STAMP, buildSnapshot } = require(builder);
  const builtBy = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8').split('\n')[0] : '';
  if (builtBy === process.execPath && modified(STAMP) > modified(bundle)) return;
  try {
    buildSnapshot();
  } catch (err) {
    process.stderr.write(`Building the CLI's startup snapshot failed, so aq starts without it: ${err.message}\n`);
  }
}

/** Fills the code cache of `aq` (scripts/warm-cli-cache.js); best effort: else the first `aq` does. */
function warmCodeCache() {
  const warm = path.join(__dirname, 'warm-cli-cache.js');
  if (fs.existsSync(warm)) spawnSync(process.execPath, [warm], { cwd: root, stdio: 'ignore', timeout: 60_000 });
}

/**
 * Transpiles the sources (scripts/transpile.js: swc, no type check; `npm test` checks types);
 * exits the process with a sentence when a source does not parse.
 */
async function build() {
  // The stamp is written before the build and moved into place after it, so it carries the
  // file system's time of the start: an edit made during the build is seen next time, and the
  // bundle written after it is never older. (Date.now() is not the clock file times come from:
  // Linux stamps files with a coarser one, up to a tick behind.)
  const pending = `${stamp}.pending`;
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(pending, `${new Date().toISOString()}\n`);
  try {
    await require(path.join(__dirname, 'transpile.js')).transpile(root);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.stderr.write('The build failed (see above); fix it and run npm start again.\n');
    process.exit(2);
  }
  fs.renameSync(pending, stamp);
}

const force = process.argv.includes('--force');
const built = fs.existsSync(entry) ? stampTime() : 0;
(async () => {
  if (force || built === 0 || SOURCES.some((s) => newest(path.join(root, s)) > built)) await build();
  await bundleIfStale();
})();
