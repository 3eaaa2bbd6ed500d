#!/usr/bin/env node
const path = require('node:path');
const fs = require('node:fs');

const root = path.join(__dirname, '..');
const unbundled = path.join(root, 'dist', 'src', 'cli.js');
const bundle = path.join(root, 'dist', 'aq-cli.js');

const modified = (file) => fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1;

/**
 * The one-file bundle the build makes (scripts/bundle-cli.js) starts several times faster; it is
 * used only while it is newer than the last TypeScript build and the last npm install, so a
 * build or install that did not bundle again never runs old code. AQ_NO_BUNDLE=1 runs unbundled.
 */
function entry() {
  if (process.env.AQ_NO_BUNDLE) return unbundled;
  const bundled = modified(bundle);
  const newest = Math.max(
    modified(path.join(root, 'dist', '.build-stamp')),
    modified(path.join(root, 'node_modules', '.package-lock.json')),
  );
  return bundled >= 0 && bundled >= newest ? bundle : unbundled;
}

const main = entry();
if (!fs.existsSync(main)) {
  process.stderr.write('aq is not built yet: run `npm run build` (npm ci does it for you).\n');
  process.exit(1);
}
// A V8 code cache and cached module resolutions cut a cold start by a third (src/cli/compile-cache.ts).
if (!process.env.AQ_NO_COMPILE_CACHE) {
  try {
    require(path.join(root, 'dist', 'src', 'cli', 'compile-cache.js')).installCompileCache(
      root,
      path.join(root, 'node_modules', '.cache', 'aq'),
      { asciiFiles: [bundle] },
    );
  } catch {
    // Without the cache aq only starts slower.
  }
}
require(main).runAsProcess(process.argv.slice(2));
