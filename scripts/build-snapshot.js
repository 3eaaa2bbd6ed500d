#!/usr/bin/env node
// Builds dist/aq.blob, a V8 startup snapshot of the CLI bundle (scripts/snapshot-entry.js), its
// PostgreSQL twin dist/aq-postgres.blob, and dist/aq.blob.stamp, which bin/aq reads to decide
// whether the snapshots fit: the Node binary they were built with (a snapshot only loads in the
// Node that made it) and the checkout they were built in (the bundle's own folder is fixed
// inside them). A process started from a snapshot begins with the bundle evaluated and the
// catalog and the ORM built, which a cold `aq` spent most of its time on. The
// PostgreSQL one also holds that driver's modules; kept apart, so that
// the SQLite default does not start from a heap that holds them.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const BUNDLE = path.join(root, 'dist', 'aq-cli.js');
const BLOB = path.join(root, 'dist', 'aq.blob');
const POSTGRES_BLOB = path.join(root, 'dist', 'aq-postgres.blob');
const STAMP = path.join(root, 'dist', 'aq.blob.stamp');

function removeSnapshot() {
  fs.rmSync(STAMP, { force: true });
  fs.rmSync(BLOB, { force: true });
  fs.rmSync(POSTGRES_BLOB, { force: true });
}

/**
 * The builder's environment, without NODE_OPTIONS: Node loads a snapshot only under the V8
 * options it was built with, and bin/aq starts from it only when NODE_OPTIONS holds none.
 */
function builderEnv(dialect) {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return { ...env, AQ_SNAPSHOT_BUNDLE: BUNDLE, AQ_SNAPSHOT_DIALECT: dialect };
}

/** Builds one snapshot; throws with the builder's last lines when it fails. */
function buildOne(blob, dialect) {
  const result = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', path.join(__dirname, 'snapshot-entry.js')], {
    cwd: root,
    env: builderEnv(dialect),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0 || !fs.existsSync(blob)) {
    const detail = (result.stderr || String(result.error ?? '')).trim().split('\n').slice(-5).join('\n');
    throw new Error(`node --build-snapshot (${dialect}) exited ${result.status}: ${detail}`);
  }
}

/**
 * Builds both snapshots. When the SQLite one fails, removes them (aq then starts without) and
 * throws; when only the PostgreSQL one fails, says so, and aq on PostgreSQL starts from the
 * SQLite one (it holds the bundle, and loads the driver and discovers when it runs).
 */
function buildSnapshot() {
  removeSnapshot();
  try {
    buildOne(BLOB, 'sqlite');
  } catch (err) {
    removeSnapshot();
    throw err;
  }
  try {
    buildOne(POSTGRES_BLOB, 'postgresql');
  } catch (err) {
    fs.rmSync(POSTGRES_BLOB, { force: true });
    process.stderr.write(
      `Building the CLI's PostgreSQL startup snapshot failed; aq on PostgreSQL starts from the SQLite one: ${err.message}\n`,
    );
  }
  // Written last: bin/aq uses a snapshot only when the stamp is there and newer than the bundle.
  fs.writeFileSync(STAMP, `${process.execPath}\n${fs.realpathSync(root)}\n`);
}

module.exports = { buildSnapshot, BLOB, POSTGRES_BLOB, STAMP };

if (require.main === module) {
  try {
    buildSnapshot();
  } catch (err) {
    process.stderr.write(`Building the CLI's startup snapshot failed, so aq starts without it: ${err.message}\n`);
  }
}
