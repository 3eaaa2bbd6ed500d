#!/usr/bin/env node
// Builds dist/ with tsc only when a source is newer than the last build: `npm start` then costs
// a few milliseconds of stat calls instead of a TypeScript build every time.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const entry = path.join(root, 'dist', 'src', 'app.js');
const SOURCES = ['src', 'listeners', 'bench', 'tsconfig.json', 'tsconfig.build.json'];

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

const force = process.argv.includes('--force');
const built = fs.existsSync(entry) ? stampTime() : 0;
if (!force && built > 0 && SOURCES.every((s) => newest(path.join(root, s)) <= built)) process.exit(0);

const startedAt = new Date();
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  process.stderr.write('The TypeScript build failed (see above); fix it and run npm start again.\n');
  process.exit(result.status ?? 1);
}
// Stamped with the time the build started, so an edit made during the build is seen next time.
fs.mkdirSync(path.dirname(stamp), { recursive: true });
fs.writeFileSync(stamp, `${startedAt.toISOString()}\n`);
fs.utimesSync(stamp, startedAt, startedAt);
