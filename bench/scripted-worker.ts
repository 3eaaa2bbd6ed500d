import path from 'node:path';
import { installCompileCache } from '../src/cli/compile-cache';

/**
 * `node dist/bench/scripted-worker.js NAME CAPACITY LEASE_MS [POLL_MS]`: an `aq worker` whose agent
 * is scripted (scripted-worker-main.ts). The fleet's tests and bench start eight or more at once,
 * each loading about 1,100 modules: with the V8 code cache and cached module lookups that `aq`
 * uses (src/cli/compile-cache.ts), in a folder of its own, a start costs a fraction of the CPU.
 */
const root = path.join(__dirname, '..', '..');
// As bin/aq.js: AQ_NO_COMPILE_CACHE=1 starts without it, and a cache that fails only costs speed.
if (!process.env.AQ_NO_COMPILE_CACHE) {
  try {
    installCompileCache(root, path.join(root, 'node_modules', '.cache', 'aq-scripted-worker'));
  } catch {
    // Starts as before, only slower.
  }
}
require('./scripted-worker-main');
