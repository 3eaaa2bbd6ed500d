// The script `node --build-snapshot` runs (scripts/build-snapshot.js): evaluates the CLI bundle
// and does the work every `aq` would repeat (the command catalog, making the ORM),
// then Node saves the heap as dist/aq.blob. A builder script may require only Node's built-in
// modules, so the bundle is compiled here by hand; what it leaves out (the SQLite driver, the
// model SDKs) is required from node_modules after the snapshot is deserialized, when used, and
// the SQLite driver is a stand-in while the warm-up runs.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const bundle = process.env.AQ_SNAPSHOT_BUNDLE;
// 'postgresql' for the snapshot `aq` starts from when DATABASE_URL names a PostgreSQL server.
const dialect = process.env.AQ_SNAPSHOT_DIALECT || 'sqlite';
// Node empties the stack trace limit while building; MikroORM reads its callers from a stack.
// Node installs the usual limit again in every process started from the snapshot.
Error.stackTraceLimit = 10;

let requireFromBundle = null;
let warmingUp = false;
function bundleRequire(id) {
  if (Module.isBuiltin(id)) return require(id);
  if (requireFromBundle) return id === 'sqlite3' ? requireSqlite3() : requireFromBundle(id);
  if (id === 'sqlite3' && warmingUp) return sqliteStandIn();
  throw new Error(`${id} was required while building the startup snapshot, which cannot hold it.`);
}

/**
 * sqlite3 with its native addon loaded from where sqlite3 puts it (built or downloaded): its
 * own loader, the `bindings` package, finds the addon by trying a list of folders with a failed
 * require each, 10-20 ms of every cold `aq`. Where the addon is elsewhere, sqlite3 loads as usual.
 */
function requireSqlite3() {
  const packageDir = path.dirname(requireFromBundle.resolve('sqlite3/package.json'));
  const bindingModule = path.join(packageDir, 'lib', 'sqlite3-binding.js');
  const addon = path.join(packageDir, 'build', 'Release', 'node_sqlite3.node');
  if (!requireFromBundle.cache[bindingModule] && fs.existsSync(addon)) {
    const binding = new Module(bindingModule);
    binding.filename = bindingModule;
    binding.exports = requireFromBundle(addon);
    binding.loaded = true;
    requireFromBundle.cache[bindingModule] = binding;
  }
  return requireFromBundle('sqlite3');
}

/**
 * What `require('sqlite3')` gives during the warm-up, so that `aq exec get_status` runs to its
 * end and the query path (knex's client and pool, MikroORM's query building, the command, the
 * close) is compiled into the snapshot: a database with no rows, whose migrations table lists
 * every shipped migration, so the migrations are not loaded into the snapshot either (a larger
 * heap made every `aq` slower). The real driver is a native addon, which a snapshot cannot hold.
 */
function sqliteStandIn() {
  const migrations = fs.readdirSync(path.join(path.dirname(bundle), 'src', 'db', 'migrations'));
  const applied = migrations.flatMap((f) => /^(Migration\d+_\w+)\.js$/.exec(f)?.[1] ?? []).map((name) => ({ name }));
  const rowsFor = (sql) => (/\bfrom\s+[`"]?mikro_orm_migrations\b/i.test(sql) ? applied : []);
  class Statement {
    constructor(sql) {
      this.sql = sql;
    }
    on() {
      return this;
    }
    all(_params, done) {
      setImmediate(() => done.call(this, null, rowsFor(this.sql)));
    }
    run(_params, done) {
      setImmediate(() => done.call({ lastID: 0, changes: 0 }, null));
    }
    reset(done) {
      setImmediate(done, null);
    }
    finalize(done) {
      setImmediate(done, null);
    }
  }
  class Database {
    constructor(_file, _flags, opened) {
      setImmediate(opened, null);
    }
    exec(_sql, done) {
      setImmediate(done, null);
    }
    all(sql, _params, done) {
      setImmediate(() => done.call({}, null, rowsFor(sql)));
    }
    run(_sql, _params, done) {
      setImmediate(() => done.call({ lastID: 0, changes: 0 }, null));
    }
    prepare(sql, done) {
      setImmediate(done, null);
      return new Statement(sql);
    }
    close(done) {
      setImmediate(done, null);
    }
  }
  return { Database, OPEN_READONLY: 1, OPEN_READWRITE: 2, OPEN_CREATE: 4 };
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
  cli.runAsProcess(process.argv.slice(1));
});

/**
 * Runs the CLI, so the functions it calls are compiled already in every process started from
 * the snapshot (V8 keeps their bytecode in it); `exec` runs on the stand-in SQLite driver above,
 * and must succeed there, or the snapshot would leave the query path out unnoticed. The ORM the
 * warm-up used up is then made again.
 */
async function warmUp() {
  let errors = '';
  const quiet = { stdout() {}, stderr: (text) => (errors += `${text}\n`), readLines: async function* () {} };
  const home = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'aq-snapshot-'));
  warmingUp = true;
  try {
    for (const args of [['help'], ['help', 'create_task'], ['--help']]) await cli.main(args, quiet, { AQ_HOME: home });
    if ((await cli.main(['exec', 'get_status'], quiet, { AQ_HOME: home })) !== 0) {
      throw new Error(`the warm-up's \`aq exec get_status\` failed on the stand-in SQLite driver: ${errors.trim()}`);
    }
  } finally {
    warmingUp = false;
    fs.rmSync(home, { recursive: true, force: true });
  }
  await cli.prepareSnapshot(dialect);
}

cli
  .prepareSnapshot(dialect)
  .then(process.env.AQ_SNAPSHOT_NO_WARM_UP ? undefined : warmUp)
  .catch((err) => {
    process.stderr.write(`Preparing the startup snapshot failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
