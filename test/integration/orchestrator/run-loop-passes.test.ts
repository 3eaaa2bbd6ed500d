import { ManualClock } from '../../../src/util/clock';
import { makeHarness, type Harness } from './harness';

/**
 * The run loop's passes are bounded: a pass slower than the loop's interval (a loaded machine) must
 * not keep the loop passing back to back, and whoever awaits a pass (the daemon's start, a test,
 * a restart request) waits for at most the pass under way and its own.
 */
describe('the run loop when a pass is slower than its interval', () => {
  let h: Harness;
  afterEach(() => h?.cleanup());

  it('starts, answers runCycle and then rests, however many interval ticks fell during each pass', async () => {
    h = await makeHarness();
    const clock = new ManualClock();
    let passes = 0;
    await h.start({
      clock,
      intervalMs: 50,
      // Each pass outlasts several intervals of the loop's clock, as every pass does on a loaded machine.
      onTick: async () => {
        passes++;
        clock.advance(500);
      },
    });
    expect(passes).toBe(1);

    await h.rt.daemon()!.runCycle();
    expect(passes).toBe(2);

    // Resting: nothing asked for a pass, so none runs however long we look.
    const settled = passes;
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(passes).toBe(settled);
  });

  it('serves any number of asks made during a pass with one more pass', async () => {
    h = await makeHarness();
    const clock = new ManualClock();
    let passes = 0;
    let release: () => void = () => undefined;
    let gate: Promise<void> | null = null;
    await h.start({
      clock,
      intervalMs: 50,
      onTick: async () => {
        passes++;
        if (gate) await gate;
      },
    });
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const daemon = h.rt.daemon()!;
    const first = daemon.runCycle();
    const asks = [daemon.runCycle(), daemon.runCycle(), daemon.runCycle()];
    for (let i = 0; i < 5; i++) daemon.kick();
    gate = null;
    release();
    await first;
    await Promise.all(asks);
    expect(passes).toBe(1 + 2);
  });
});
