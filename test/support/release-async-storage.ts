import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Runs before each test file (Jest's `setupFiles`): it switches off the AsyncLocalStorage
 * instances the worker's earlier test files switched on.
 *
 * Every test file loads its modules afresh, so each file brings its own instances (MikroORM's
 * request and transaction contexts, jest-circus's own) and switches them on at first use. On
 * Node 20 and 22, a switched-on instance stays on for the life of the process, and each new
 * promise pays a call for each instance on (`_propagate`): by a worker's twentieth file, that
 * was 10% of its CPU. Switching off an instance whose file has ended is safe: nothing of that
 * file runs any more, and an instance used again switches itself back on.
 *
 * Node 24 keeps contexts without these hooks (no `_enable`): then this does nothing.
 */
const ENABLED_BY_EARLIER_FILES = Symbol.for('agent-queue.test.enabled-async-storage');

type Tracked = { _enable?: (this: AsyncLocalStorage<unknown>) => void; [ENABLED_BY_EARLIER_FILES]?: Set<AsyncLocalStorage<unknown>> };

// The prototype is the worker's own (core modules are shared by every test file of a worker).
const prototype = AsyncLocalStorage.prototype as unknown as Tracked;
const enable = prototype._enable;
if (typeof enable === 'function') {
  let enabled = prototype[ENABLED_BY_EARLIER_FILES];
  if (!enabled) {
    const tracked = new Set<AsyncLocalStorage<unknown>>();
    prototype._enable = function (this: AsyncLocalStorage<unknown>) {
      tracked.add(this);
      enable.call(this);
    };
    prototype[ENABLED_BY_EARLIER_FILES] = tracked;
    enabled = tracked;
  }
  for (const storage of enabled) storage.disable();
  enabled.clear();
}
