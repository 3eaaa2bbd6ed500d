#!/usr/bin/env node
// Fills the V8 code cache of `aq` (src/cli/compile-cache.ts) with the code a command runs, so the
// first `aq` after a build or an install starts as fast as the next: one `exec get_status` on a
// throwaway AQ_HOME. It passes its own environment, so no .env is read and no configured
// database is ever opened. Run as a plain `node FILE`, as bin/aq.js is, so V8 keys the cache alike.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const bundle = path.join(root, 'dist', 'aq-cli.js');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'aq-warm-'));
process.on('exit', () => fs.rmSync(home, { recursive: true, force: true }));

require(path.join(root, 'dist', 'src', 'cli', 'compile-cache.js')).installCompileCache(
  root,
  path.join(root, 'node_modules', '.cache', 'aq'),
  {
    asciiFiles: [bundle],
  },
);
const quiet = { stdout() {}, stderr() {}, async *readLines() {} };
require(bundle)
  .main(['exec', 'get_status'], quiet, { PATH: process.env.PATH, AQ_HOME: home })
  .then((code) => {
    process.exitCode = code;
  });
