#!/usr/bin/env node
// Builds dist/aq.blob, a V8 startup snapshot of the CLI bundle (scripts/snapshot-entry.js), and
// dist/aq.blob.stamp, which bin/aq reads to decide whether the snapshot fits: the Node binary it
// was built with (a snapshot only loads in the Node that made it) and the checkout it was built
// in (the bundle's own folder is fixed inside it). A process started from the snapshot begins
// with the bundle evaluated and the catalog and entity metadata built, which a cold `aq` spent
// most of its time on.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const BUNDLE = path.join(root, 'dist', 'aq-cli.js');
const BLOB = path.join(root, 'dist', 'aq.blob');
const STAMP = path.join(root, 'dist', 'aq.blob.stamp');

function removeSnapshot() {
  fs.rmSync(STAMP, { force: true });
  fs.rmSync(BLOB, { force: true });
}

/**
 * The builder's environment, without NODE_OPTIONS: Node loads a snapshot only under the V8
 * options it was built with, and bin/aq starts from it only when NODE_OPTIONS holds none.
 */
function builderEnv() {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return { ...env, AQ_SNAPSHOT_BUNDLE: BUNDLE };
}

/** Builds the snapshot; on failure removes any old one (aq then starts without) and throws. */
function buildSnapshot() {
  removeSnapshot();
  const result = spawnSync(process.execPath, ['--snapshot-blob', BLOB, '--build-snapshot', path.join(__dirname, 'snapshot-entry.js')], {
    cwd: root,
    env: builderEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0 || !fs.existsSync(BLOB)) {
    removeSnapshot();
    const detail = (result.stderr || String(result.error ?? '')).trim().split('\n').slice(-5).join('\n');
    throw new Error(`node --build-snapshot exited ${result.status}: ${detail}`);
  }
  // Written last: bin/aq uses the snapshot only when the stamp is there and newer than the bundle.
  fs.writeFileSync(STAMP, `${process.execPath}\n${fs.realpathSync(root)}\n`);
}

module.exports = { buildSnapshot, BLOB, STAMP };

if (require.main === module) {
  try {
    buildSnapshot();
  } catch (err) {
    process.stderr.write(`Building the CLI's startup snapshot failed, so aq starts without it: ${err.message}\n`);
  }
}
