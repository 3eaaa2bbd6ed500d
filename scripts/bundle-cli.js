#!/usr/bin/env node
// Bundles the built CLI (dist/src/cli.js and everything it loads) into one file, dist/aq-cli.js,
// which bin/aq.js runs. A cold `aq` spent most of its time finding, reading and compiling ~1000
// small modules; one file (with the V8 code cache of src/cli/compile-cache.ts) loads in a
// fraction of that. Bundles the JavaScript the build emitted (scripts/transpile.js), decorators and metadata included.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const ENTRY = path.join(root, 'dist', 'src', 'cli.js');
const OUTFILE = path.join(root, 'dist', 'aq-cli.js');

/**
 * Left out and required from node_modules when used: the native SQLite driver (it cannot be
 * bundled) and the model SDKs, large, loaded on the first model call and sharing nothing with
 * the bundled code. Everything else is inside, so no package is ever loaded twice.
 */
const EXTERNAL = ['sqlite3', '@anthropic-ai/sdk', '@anthropic-ai/claude-agent-sdk'];

/**
 * Database drivers knex and MikroORM name but this app does not install (pg, mysql, tedious, …):
 * left as a plain require, which fails only if such a driver were ever used.
 */
const optionalPackages = {
  name: 'optional-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'retry') return undefined;
      const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'retry' });
      return found.errors.length > 0 ? { path: args.path, external: true } : found;
    });
  },
};

/**
 * zod ships a CommonJS and an ES module build. Our modules require it, and the ACP SDK (ES modules
 * only) imports it, so esbuild bundled both: two copies of zod, each with every locale, evaluated
 * in every `aq`. Every import of zod now takes the CommonJS build, one copy for all.
 */
const oneZod = {
  name: 'one-zod',
  setup(build) {
    build.onResolve({ filter: /^zod(\/|$)/ }, (args) => {
      if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
      return { path: require.resolve(args.path, { paths: [args.resolveDir] }) };
    });
  },
};

/** Our modules that read files beside them (the migrations folder) keep their own __dirname. */
const ownDirname = {
  name: 'own-dirname',
  setup(build) {
    const dist = path.join(root, 'dist');
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + path.sep) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (!source.includes('__dirname')) return undefined;
      const relative = path.relative(path.dirname(OUTFILE), path.dirname(args.path)).split(path.sep).join('/');
      return { contents: source.replace(/\b__dirname\b/g, `require("path").join(__dirname, ${JSON.stringify(relative)})`), loader: 'js' };
    });
  },
};

/**
 * esbuild escapes non-ASCII characters everywhere but in regular expression literals. One such
 * character makes Node read the whole file as two-byte text, several times slower to read,
 * hash and parse; `\uXXXX` means the same in a regular expression, a string or a comment. (The
 * pattern names what may stay, printable ASCII and line breaks, as Biome forbids control
 * characters in a pattern.)
 */
function asciiOnly(text) {
  return text.replace(/[^ -~\t\n\r]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * umzug (under MikroORM's Migrator) loads its command-line interface, and with it @rushstack's
 * libraries and ajv, though nothing here uses it: a new database's first `aq` paid for them.
 */
const withoutUmzugCli = {
  name: 'without-umzug-cli',
  setup(build) {
    build.onLoad({ filter: /[\\/]umzug[\\/]lib[\\/]cli\.js$/ }, () => ({
      contents: "exports.UmzugCLI = class { constructor() { throw new Error('The umzug command line is not part of aq.'); } };",
      loader: 'js',
    }));
  },
};

/**
 * Modules the bundle's packages require as they load but `aq` never runs, each replaced by a
 * stand-in that says so if it ever were: knex's own migrator and seeder (MikroORM migrates through
 * umzug), with the lodash functions they bring, and esprima, which MikroORM's entity discovery
 * parses constructors with (the ORM holds no entities).
 */
const NEVER_RUN = [
  [/[\\/]knex[\\/]lib[\\/]migrations[\\/]migrate[\\/]Migrator\.js$/, 'exports.Migrator'],
  [/[\\/]knex[\\/]lib[\\/]migrations[\\/]seed[\\/]Seeder\.js$/, 'module.exports'],
  [/[\\/]esprima[\\/]dist[\\/]esprima\.js$/, 'exports.tokenize'],
];
const withoutNeverRun = {
  name: 'without-never-run',
  setup(build) {
    for (const [filter, name] of NEVER_RUN) {
      build.onLoad({ filter }, (args) => ({
        contents: `${name} = function () { throw new Error(${JSON.stringify(`${path.basename(args.path)} is not part of aq.`)}); };`,
        loader: 'js',
      }));
    }
  },
};

/**
 * zod's locale index requires every one of its 63 locale files as it loads, though the app's
 * messages are its own and zod speaks English by default: a tenth of the bundle, evaluated in
 * every `aq` and held by the startup snapshot. The bundle's index holds English alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.cjs$/ }, () => ({
      contents: "'use strict';\nObject.defineProperty(exports, '__esModule', { value: true });\nexports.en = require('./en.cjs');\n",
      loader: 'js',
    }));
  },
};

/**
 * pg asks on load whether it runs in a Cloudflare Worker; where Node has no `navigator` (Node 20)
 * it finds out by building a `Response`, which loads Node's whole fetch implementation (undici)
 * into every `aq` on PostgreSQL. aq runs on Node only: its bundle gets pg's Node stream functions.
 */
const pgStreamForNode = {
  name: 'pg-stream-for-node',
  setup(build) {
    build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, () => ({
      contents: [
        'module.exports = {',
        "  getStream: () => new (require('net').Socket)(),",
        "  getSecureStream: (options) => require('tls').connect(options),",
        '};',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/** Writes dist/aq-cli.js and its startup snapshot (scripts/build-snapshot.js); resolves to false (and writes nothing) when esbuild is not installed. */
async function bundleCli() {
  let esbuild;
  try {
    esbuild = require('esbuild');
  } catch {
    return false;
  }
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    outfile: OUTFILE,
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: EXTERNAL,
    plugins: [oneZod, zodEnglishOnly, withoutNeverRun, optionalPackages, ownDirname, withoutUmzugCli, pgStreamForNode],
    // Names stay: stack traces and error names read as the source's.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'error',
  });
  const [output] = result.outputFiles;
  fs.writeFileSync(OUTFILE, asciiOnly(output.text));
  const snapshotBuilder = path.join(__dirname, 'build-snapshot.js');
  if (!fs.existsSync(snapshotBuilder)) return true;
  try {
    require(snapshotBuilder).buildSnapshot();
  } catch (err) {
    process.stderr.write(`Building the CLI's startup snapshot failed, so aq starts without it: ${err.message}\n`);
  }
  return true;
}

module.exports = { bundleCli, OUTFILE };

if (require.main === module) {
  bundleCli().then(
    (built) => {
      if (!built) process.stderr.write('esbuild is not installed: aq runs unbundled (slower to start).\n');
    },
    (err) => {
      process.stderr.write(`Bundling the CLI failed: ${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
