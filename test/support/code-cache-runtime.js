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
 * This leans on one internal of jest-runtime (its module executor's `compile`); when that is not
 * there, Jest's own compile runs unchanged.
 */
const RUN_DIR_VARIABLE = 'AQ_TEST_RUN_DIR';
const inMemory = new Map();

function cacheDir() {
  const runDir = process.env[RUN_DIR_VARIABLE];
  if (!runDir) return null;
  const dir = path.join(runDir, 'v8-code-cache');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function cachedCode(dir, key) {
  const known = inMemory.get(key);
  if (known) return known;
  try {
    const data = fs.readFileSync(path.join(dir, key));
    inMemory.set(key, data);
    return data;
  } catch {
    return undefined;
  }
}

function keepCode(dir, key, data) {
  inMemory.set(key, data);
  // Written aside and renamed, so another worker never reads half a file.
  const aside = path.join(dir, `${key}.${process.pid}`);
  try {
    fs.writeFileSync(aside, data);
    fs.renameSync(aside, path.join(dir, key));
  } catch {
    fs.rmSync(aside, { force: true });
  }
}

class CodeCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    const dir = cacheDir();
    if (!dir || typeof executor?.compile !== 'function' || !Array.isArray(executor.injectedModuleParameters)) return;
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const context = executor.environment.getVmContext();
      if (context == null || executor.resolution.isCoreModule(filename)) return jestCompile(source, filename);
      const key = createHash('sha1').update(filename).update('\0').update(source).digest('hex');
      const cachedData = cachedCode(dir, key);
      let compiled;
      try {
        compiled = vm.compileFunction(source, executor.injectedModuleParameters, {
          filename,
          cachedData,
          produceCachedData: cachedData === undefined,
          importModuleDynamically: (specifier, _fn, attributes, ...rest) =>
            executor.dynamicImport(specifier, filename, context, attributes, rest[0]),
          parsingContext: context,
        });
      } catch {
        // Jest's compile turns a syntax error into its own clear message.
        return jestCompile(source, filename);
      }
      if (cachedData === undefined && compiled.cachedData) keepCode(dir, key, compiled.cachedData);
      return compiled;
    };
  }
}

module.exports = CodeCacheRuntime;
