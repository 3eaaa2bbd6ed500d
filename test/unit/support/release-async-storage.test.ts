import { AsyncLocalStorage } from 'node:async_hooks';

/** Runs the setup file again, as Jest does before the worker's next test file. */
function nextTestFile(): void {
  jest.isolateModules(() => {
    require('../../support/release-async-storage');
  });
}

const hooked = typeof (AsyncLocalStorage.prototype as unknown as { _enable?: unknown })._enable === 'function';

describe('release-async-storage (the setup before each test file)', () => {
  it('switches off what earlier files switched on; an instance used again switches itself back on', async () => {
    const earlier = new AsyncLocalStorage<string>();
    earlier.enterWith('left on by an earlier file');
    expect(earlier.getStore()).toBe('left on by an earlier file');

    nextTestFile();

    // Switched off, it holds nothing (on Node 24 there is nothing to switch off: it still holds it).
    expect(earlier.getStore()).toBe(hooked ? undefined : 'left on by an earlier file');
    const current = new AsyncLocalStorage<string>();
    await current.run('this file', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      expect(current.getStore()).toBe('this file');
      expect(await earlier.run('used again', async () => earlier.getStore())).toBe('used again');
    });
  });
});
