/**
 * The time the run loop waits on: leases, heartbeats, poll intervals, backoffs and how long a
 * question waits for a person. The system clock in production; a ManualClock lets a test move
 * time on instead of waiting it out.
 */
export interface Clock {
  now(): Date;
  /** Resolves after `ms` of this clock's time, or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` every `ms` of this clock's time until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep(ms, signal) {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  },
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref?.();
    return () => clearInterval(timer);
  },
};

interface Alarm {
  at: number;
  fire: () => void;
  repeatMs: number | null;
}

/** A clock that moves only when told to: `advance` fires what fell due, in order. */
export class ManualClock implements Clock {
  private ms: number;
  private alarms: Alarm[] = [];

  constructor(start: Date | number = Date.now()) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  /** Sleeps and intervals waiting on this clock. */
  get pending(): number {
    return this.alarms.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const alarm: Alarm = { at: this.ms + Math.max(0, ms), repeatMs: null, fire: () => done() };
      const done = () => {
        this.remove(alarm);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      this.alarms.push(alarm);
    });
  }

  every(ms: number, fn: () => void): () => void {
    const alarm: Alarm = { at: this.ms + ms, repeatMs: Math.max(1, ms), fire: fn };
    this.alarms.push(alarm);
    return () => this.remove(alarm);
  }

  /**
   * Moves time on by `ms`, firing what falls due on the way in time order: each sleep once, and
   * each interval once however many of its periods passed (as a busy machine coalesces timers).
   */
  advance(ms: number): void {
    const target = this.ms + ms;
    const due = this.alarms.filter((a) => a.at <= target).sort((a, b) => a.at - b.at);
    for (const alarm of due) {
      this.ms = Math.max(this.ms, alarm.at);
      if (alarm.repeatMs === null) this.remove(alarm);
      else alarm.at += Math.ceil((target + 1 - alarm.at) / alarm.repeatMs) * alarm.repeatMs;
      alarm.fire();
    }
    this.ms = target;
  }

  private remove(alarm: Alarm): void {
    this.alarms = this.alarms.filter((a) => a !== alarm);
  }
}
