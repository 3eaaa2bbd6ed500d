/**
 * What a test's waits sleep on: a pause, cut short by anything that may have changed what they
 * wait for (an event a test runtime emitted, a scripted agent run starting). A wait then probes
 * as soon as something happened and only seldom otherwise: probing a database every 25 ms cost
 * about a tenth of a core for as long as a test waited.
 */
const sleepers = new Set<() => void>();

/** Ends every pause in progress: the waits probe again now. */
export function wakeWaits(): void {
  for (const wake of [...sleepers]) wake();
}

/** Resolves after `ms`, or at the next wakeWaits(), whichever comes first. */
export function pauseUntilChange(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      sleepers.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    sleepers.add(wake);
  });
}
