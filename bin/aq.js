#!/usr/bin/env node
const path = require('node:path');
const fs = require('node:fs');

const entry = path.join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('aq is not built yet: run `npm run build` (npm ci does it for you).\n');
  process.exit(1);
}
// A V8 code cache and cached module resolutions cut a cold start by a third (src/cli/compile-cache.ts).
if (!process.env.AQ_NO_COMPILE_CACHE) {
  try {
    const root = path.join(__dirname, '..');
    require(path.join(root, 'dist', 'src', 'cli', 'compile-cache.js')).installCompileCache(
      root,
      path.join(root, 'node_modules', '.cache', 'aq'),
    );
  } catch {
    // Without the cache aq only starts slower.
  }
}
require(entry)
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`aq failed: ${err?.message ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
