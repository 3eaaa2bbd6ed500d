import { crc32 } from 'node:zlib';
import { isAscii } from 'node:buffer';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/**
 * A V8 code cache for the `aq` process. A cold `aq exec` loads ~1000 CommonJS modules (MikroORM,
 * knex, zod, …) and most of its CPU time went to parsing and compiling them; Node 20 has no
 * built-in compile cache (module.enableCompileCache came in 22). Each module is compiled through
 * vm.Script with the bytes V8 produced the last time, kept in one file keyed by the source's hash,
 * so a changed file (an upgrade, a rebuild) is simply compiled afresh. Anything unexpected —
 * an unreadable or corrupt cache, a read-only folder — falls back to Node's own loading.
 *
 * Finding each module (stat calls up the node_modules tree, package.json reads, realpath) cost as
 * much again, so the file also keeps where each `require` resolved to. Those answers are trusted
 * only while the install and the build are unchanged: they are dropped whenever npm's record of
 * node_modules (node_modules/.package-lock.json) or the TypeScript build info changes.
 */

interface Entry {
  file: string;
  hash: string;
  data: Buffer;
}

interface CompiledModule {
  file: string;
  hash: string;
  script: vm.Script;
}

type CompileFn = (this: NodeJS.Module, content: string, filename: string) => unknown;
type ModuleInternals = typeof Module & {
  prototype: { _compile: CompileFn };
  _resolveFilename: (...a: unknown[]) => string;
  _resolveLookupPaths: (r: string, m: NodeJS.Module) => string[] | null;
  _extensions: unknown;
  _cache: unknown;
};

/** Node's own loader for import() inside a vm.Script (Node 20.12+), so such modules are cached too. */
const DEFAULT_LOADER = (vm.constants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } | undefined)
  ?.USE_MAIN_CONTEXT_DEFAULT_LOADER as vm.ScriptOptions['importModuleDynamically'];

/** The cache file for this Node build and V8 flags: V8 rejects code made under other flags. */
function cacheFile(dir: string): string {
  const flags = crc32(`${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS ?? ''}`)
    .toString(16)
    .padStart(8, '0');
  return path.join(dir, `v8-${process.version}-${process.arch}-${flags}.bin`);
}

interface Cache {
  entries: Map<string, Entry>;
  /** `${parent folder}\0${request}` → resolved file, valid for `fingerprint` only. */
  resolutions: Map<string, string>;
  fingerprint: string;
}

interface Index {
  fingerprint: string;
  resolutions: Array<[string, string]>;
  code: Array<{ file: string; hash: string; length: number }>;
}

/** What the resolutions depend on; empty (no resolution cache) when npm's record is missing. */
function installFingerprint(root: string): string {
  try {
    const lock = statSync(path.join(root, 'node_modules', '.package-lock.json'));
    const build = statSync(path.join(root, 'dist', '.build-stamp'), { throwIfNoEntry: false });
    return `${lock.mtimeMs}:${lock.size}:${build?.mtimeMs ?? 0}:${build?.size ?? 0}`;
  } catch {
    return '';
  }
}

/** Layout: 4-byte index length, the JSON Index, then the code data in index order. */
function readCache(file: string, fingerprint: string): Cache {
  const cache: Cache = { entries: new Map(), resolutions: new Map(), fingerprint };
  let blob: Buffer;
  try {
    blob = readFileSync(file);
  } catch {
    return cache;
  }
  try {
    const indexLength = blob.readUInt32LE(0);
    const index = JSON.parse(blob.subarray(4, 4 + indexLength).toString('utf8')) as Index;
    let offset = 4 + indexLength;
    for (const { file: f, hash, length } of index.code) {
      cache.entries.set(f, { file: f, hash, data: blob.subarray(offset, offset + length) });
      offset += length;
    }
    if (offset !== blob.length) throw new Error('truncated');
    if (fingerprint && index.fingerprint === fingerprint) cache.resolutions = new Map(index.resolutions);
  } catch {
    cache.entries.clear();
  }
  return cache;
}

function writeCache(file: string, cache: Cache): void {
  const list = [...cache.entries.values()];
  const content: Index = {
    fingerprint: cache.fingerprint,
    resolutions: cache.fingerprint ? [...cache.resolutions] : [],
    code: list.map((e) => ({ file: e.file, hash: e.hash, length: e.data.length })),
  };
  const index = Buffer.from(JSON.stringify(content));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(index.length, 0);
  mkdirSync(path.dirname(file), { recursive: true });
  // Another `aq` may be writing too: each writes its own file and the rename is atomic.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([head, index, ...list.map((e) => e.data)]));
  renameSync(tmp, file);
}

/** The `require` a CommonJS module gets, as Node builds it. */
function makeRequire(mod: NodeJS.Module): NodeJS.Require {
  const M = Module as ModuleInternals;
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) =>
    M._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => M._resolveLookupPaths(request, mod);
  req.resolve = resolve;
  req.main = require.main;
  req.extensions = M._extensions as NodeJS.RequireExtensions;
  req.cache = M._cache as NodeJS.Dict<NodeJS.Module>;
  return req;
}

/**
 * The source's checksum: V8 itself checks only the length, so a same-length edit must not reuse
 * code. CRC-32 (as Node 22's own compile cache uses) costs a few milliseconds on the 3 MB bundle
 * where SHA-1 cost over ten.
 */
const hashSource = (content: string): string => crc32(content).toString(36);

/**
 * Node reads a module as UTF-8, which for the 3 MB bundle takes ~20 ms; read as Latin-1 it takes
 * ~2 ms and gives the same text when every byte is ASCII (scripts/bundle-cli.js makes it so;
 * checked here all the same). Only for the files named: Node's loader does more for other files
 * (ES module detection) than this does.
 */
function readAsAscii(files: Set<string>): void {
  if (files.size === 0) return;
  const extensions = (Module as ModuleInternals)._extensions as Record<string, (m: NodeJS.Module, f: string) => void>;
  const loadJs = extensions['.js'];
  extensions['.js'] = function loadAscii(this: unknown, mod: NodeJS.Module, filename: string) {
    if (!files.has(filename)) return loadJs.call(this, mod, filename);
    const bytes = readFileSync(filename);
    const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    (mod as NodeJS.Module & { _compile(content: string, filename: string): void })._compile(text, filename);
  };
}

/**
 * Installs the cache for every module required after this call (`root` is the package folder,
 * the cache lives in `dir`); the cache is saved at exit when something was missing from it.
 */
export function installCompileCache(root: string, dir: string, options: { asciiFiles?: string[] } = {}): void {
  const M = Module as ModuleInternals;
  readAsAscii(new Set(options.asciiFiles));
  const originalCompile = M.prototype._compile;
  const originalResolve = M._resolveFilename;
  const file = cacheFile(dir);
  const cache = readCache(file, installFingerprint(root));
  const compiled: CompiledModule[] = [];
  const resolvedHere = new Map<string, string>();
  let stale = false;

  if (cache.fingerprint) {
    M._resolveFilename = function resolveWithCache(this: unknown, ...args: unknown[]) {
      const [request, parent, isMain, options] = args as [string, NodeJS.Module | undefined, boolean, unknown];
      // An absolute request needs no lookup, and its key would differ with the requiring folder.
      if (isMain || options || !parent?.path || Module.isBuiltin(request) || path.isAbsolute(request)) {
        return originalResolve.apply(this, args);
      }
      const key = `${parent.path}\0${request}`;
      const known = cache.resolutions.get(key);
      if (known) {
        resolvedHere.set(key, known);
        return known;
      }
      const resolved = originalResolve.apply(this, args);
      resolvedHere.set(key, resolved);
      stale = true;
      return resolved;
    };
  }

  M.prototype._compile = function compileWithCache(this: NodeJS.Module, content: string, filename: string) {
    // Dynamic import() in a vm.Script needs a loader hook; without Node's default one (older
    // Node 20 releases) such modules load as usual.
    if (!DEFAULT_LOADER && content.includes('import(')) return originalCompile.call(this, content, filename);
    const hash = hashSource(content);
    const entry = cache.entries.get(filename);
    const cachedData = entry && entry.hash === hash ? entry.data : undefined;
    const script = new vm.Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: DEFAULT_LOADER });
    if (!cachedData || script.cachedDataRejected) stale = true;
    compiled.push({ file: filename, hash, script });
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return fn.call(this.exports, this.exports, makeRequire(this), this, filename, path.dirname(filename));
  };

  process.once('exit', () => {
    if (!stale) return;
    try {
      // Made after the run, the data also holds the functions compiled lazily while it ran. Only
      // this run's modules (and module lookups) are kept, so what an old build or another entry
      // point needed does not make every start read more.
      cache.entries.clear();
      cache.resolutions = resolvedHere;
      for (const { file: f, hash, script } of compiled) cache.entries.set(f, { file: f, hash, data: script.createCachedData() });
      writeCache(file, cache);
    } catch {
      // A cache that cannot be written only costs the next start its speed.
    }
  });
}
