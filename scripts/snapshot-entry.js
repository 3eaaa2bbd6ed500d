// The script `node --build-snapshot` runs (scripts/build-snapshot.js): evaluates the CLI bundle
// and does the work every `aq` would repeat (the command catalog, MikroORM's entity discovery),
// then Node saves the heap as dist/aq.blob. A builder script may require only Node's built-in
// modules, so the bundle is compiled here by hand; what it leaves out (the SQLite driver, the
// model SDKs) is required from node_modules after the snapshot is deserialized, when used.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const bundle = process.env.AQ_SNAPSHOT_BUNDLE;
// Node empties the stack trace limit while building; MikroORM reads its callers from a stack.
// Node installs the usual limit again in every process started from the snapshot.
Error.stackTraceLimit = 10;

let requireFromBundle = null;
function bundleRequire(id) {
  if (Module.isBuiltin(id)) return require(id);
  if (requireFromBundle) return requireFromBundle(id);
  throw new Error(`${id} was required while building the startup snapshot, which cannot hold it.`);
}

// scripts/bundle-cli.js writes the bundle in ASCII, so Latin-1 reads it as it is, faster.
const source = fs.readFileSync(bundle, 'latin1');
const cliModule = { exports: {}, id: bundle, filename: bundle, loaded: false };
vm.runInThisContext(Module.wrap(source), { filename: bundle }).call(
  cliModule.exports,
  cliModule.exports,
  bundleRequire,
  cliModule,
  bundle,
  path.dirname(bundle),
);
const cli = cliModule.exports;

v8.startupSnapshot.setDeserializeMainFunction(() => {
  requireFromBundle = Module.createRequire(bundle);
  // bin/aq passes the arguments after `--`, so process.argv holds node and then them.
  cli.main(process.argv.slice(1)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`aq failed: ${err?.message ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
});

/**
 * Runs the CLI as far as it goes without a database, so the functions it calls are compiled
 * already in every process started from the snapshot (V8 keeps their bytecode in it). `exec`
 * stops where it would load the SQLite driver; the entity discovery it used up is then done again.
 */
async function warmUp() {
  const quiet = { stdout() {}, stderr() {}, readLines: async function* () {} };
  const home = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'aq-snapshot-'));
  try {
    for (const args of [['help'], ['help', 'create_task'], ['--help'], ['exec', 'get_status']]) {
      await cli.main(args, quiet, { AQ_HOME: home });
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  await cli.prepareSnapshot();
}

cli
  .prepareSnapshot()
  .then(process.env.AQ_SNAPSHOT_NO_WARM_UP ? undefined : warmUp)
  .catch((err) => {
    process.stderr.write(`Preparing the startup snapshot failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
