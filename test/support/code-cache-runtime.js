const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/**
 * Jest's runtime, with V8's code cache for the modules it compiles.
 *
 * Each test file gets a fresh module registry, so every suite compiles again the ~1,100 modules
 * the runtime pulls in (MikroORM, knex and its lodash, zod, Bolt, our sources): about 0.75 s of
 * CPU per suite, most of it V8 parsing the same text. Jest keeps the transformed text on disk but
 * not the compiled code. Here the code V8 produced for a module's text is kept in the run's folder
 * (test/support/run-dir.ts), shared by every worker, and given back to V8 the next time the same
 * text is compiled. V8 checks the data against the text and recompiles when it does not fit;
 * the module still runs in each suite's own context, as before.
 *
 * The code is kept after the first file that loaded the module has run, not when it was
 * compiled: V8 compiles most functions only when first called, and data made at compile time
 * left every later suite compiling them again (test/integration/commands in one process: 62 s of
 * CPU against 53-56 s, alternated runs, 2026-11-26). Modules are compiled as a vm.Script (the code of a function
 * can not be kept after it ran), wrapped in a function of Jest's module parameters.
 *
 * Within a worker the compiled script itself is kept too, and run in each later file's context:
 * a vm.Script is not bound to a context, so the next file neither compiles the module nor reads
 * its cached code, and the functions the earlier files called are compiled already. Only the
 * compiling is shared: each file still runs the module's wrapper in its own context and gets its
 * own module object, exports and state.
 *
 * This leans on one internal of jest-runtime (its module executor's `compile`); when that is not
 * there, Jest's own compile runs unchanged.
 */
const RUN_DIR_VARIABLE = 'AQ_TEST_RUN_DIR';

function cacheDir() {
  const runDir = process.env[RUN_DIR_VARIABLE];
  if (!runDir) return null;
  const dir = path.join(runDir, 'v8-code-cache');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** The code another worker (or an earlier one) kept for `key`: read once per worker, as the script that uses it is kept. */
function cachedCode(dir, key) {
  try {
    return fs.readFileSync(path.join(dir, key));
  } catch {
    return undefined;
  }
}

function keepCode(dir, key, data) {
  // Written aside and renamed, so another worker never reads half a file.
  const aside = path.join(dir, `${key}.${process.pid}`);
  try {
    fs.writeFileSync(aside, data);
    fs.renameSync(aside, path.join(dir, key));
  } catch {
    fs.rmSync(aside, { force: true });
  }
}

/**
 * Modules this worker compiled without cached code, with the script that holds their code: once
 * the test file that loaded them has run, their code is kept (see upgradeKeptCode).
 */
const compiledWithoutCache = [];

/** This worker's compiled module scripts and their text, by file; each later test file runs them in its context. */
const compiledScripts = new Map();

/**
 * The module executor of the test file this worker runs now. A kept script's dynamic `import()`
 * is the file's that runs it, not the first one's, so the script asks here when it is called.
 */
let currentExecutor = null;

/**
 * Keeps the code of the modules compiled since the last call. The data is made from the script
 * after a test file ran it, so it holds every function that file called, not only the ones V8
 * compiles at first sight: the next file that loads the module compiles none of them again.
 */
function upgradeKeptCode(dir) {
  for (const { key, script } of compiledWithoutCache.splice(0)) {
    try {
      keepCode(dir, key, script.createCachedData());
    } catch {
      // Without it the next file only compiles that module again.
    }
  }
}

/**
 * The bytes of the project's sources and packages, read once per worker. Jest's runtime reads a
 * module's file again in every test file that loads it (a file cache per test file): about 1,100
 * files a suite, and opening them was an eighth of the CPU of loading a suite here. These files do
 * not change while tests run; anything else (a test's temporary files) is read as before.
 */
const sharedFileBytes = new Map();

/** The transformed text of those files, by file and transform options, also once per worker. */
const sharedTransforms = new Map();

function stableFolders(rootDir) {
  return ['node_modules', 'src', 'test'].map((folder) => path.join(rootDir, folder) + path.sep);
}

function shareFileReads(fileCache, stable) {
  if (typeof fileCache?.readFileBuffer !== 'function') return;
  const readOwn = fileCache.readFileBuffer.bind(fileCache);
  fileCache.readFileBuffer = (filename) => {
    if (!stable.some((folder) => filename.startsWith(folder))) return readOwn(filename);
    let bytes = sharedFileBytes.get(filename);
    if (bytes === undefined) {
      bytes = readOwn(filename);
      sharedFileBytes.set(filename, bytes);
    }
    return bytes;
  };
}

/**
 * Jest's transformer, asked again by every test file for every module, stats the file to find
 * its kept transform (the file's modification time is in the key): one `stat` a module a suite.
 */
function shareTransforms(transformCache, stable) {
  const transformer = transformCache?.scriptTransformer;
  if (typeof transformer?.transform !== 'function') return;
  const transformOwn = transformer.transform.bind(transformer);
  transformer.transform = (filename, options, source) => {
    if (!stable.some((folder) => filename.startsWith(folder))) return transformOwn(filename, options, source);
    const key = `${filename}\0${JSON.stringify(options)}`;
    const kept = sharedTransforms.get(key);
    if (kept?.source === source) return kept.result;
    const result = transformOwn(filename, options, source);
    sharedTransforms.set(key, { source, result });
    return result;
  };
}

class CodeCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const stable = stableFolders(args[0].rootDir);
    shareFileReads(this.fileCache, stable);
    shareTransforms(this.transformCache, stable);
    const executor = this.executor;
    const dir = cacheDir();
    if (!dir || typeof executor?.compile !== 'function' || !Array.isArray(executor.injectedModuleParameters)) return;
    // A new runtime is a new test file: the last one's modules have run.
    upgradeKeptCode(dir);
    const jestCompile = executor.compile.bind(executor);
    // The module's text inside a function of Jest's module parameters, all on its first line (as
    // Node wraps a CommonJS module), so line numbers and source maps are unchanged.
    const opening = `(function (${executor.injectedModuleParameters.join(', ')}) {`;
    currentExecutor = executor;
    executor.compile = (source, filename) => {
      const context = executor.environment.getVmContext();
      if (context == null || executor.resolution.isCoreModule(filename)) return jestCompile(source, filename);
      try {
        // Compared as text: cheaper than hashing it again, and the text decides.
        const kept = compiledScripts.get(filename);
        let script = kept?.source === source ? kept.script : undefined;
        if (!script) {
          const key = createHash('sha1').update(filename).update('\0').update(source).digest('hex');
          const cachedData = cachedCode(dir, key);
          script = new vm.Script(`${opening}${source}\n})`, {
            filename,
            cachedData,
            importModuleDynamically: (specifier, _script, attributes, ...rest) =>
              currentExecutor.dynamicImport(specifier, filename, currentExecutor.environment.getVmContext(), attributes, rest[0]),
          });
          if (cachedData === undefined || script.cachedDataRejected) compiledWithoutCache.push({ key, script });
          compiledScripts.set(filename, { source, script });
        }
        return script.runInContext(context);
      } catch {
        // Jest's compile turns a syntax error into its own clear message.
        return jestCompile(source, filename);
      }
    };
  }
}

module.exports = CodeCacheRuntime;
