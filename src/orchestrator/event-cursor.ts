/**
 * Which stored events the relay has handed on. Event ids are taken in insert order but may become
 * visible out of order: on PostgreSQL a transaction that took id 7 can commit after the one that
 * took id 8. So the cursor keeps a floor (every id at or below it is done) and the ids above it
 * it has already seen; a missing id holds the floor until it shows up, or until `graceMs` has
 * passed (an insert that was rolled back never shows up). Events after a gap are not held back.
 */
export class EventCursor {
  private floor: number;
  private readonly seen = new Set<number>();
  private gapSince: number | null = null;

  constructor(
    start: number,
    private readonly graceMs = 60_000,
  ) {
    this.floor = start;
  }

  /** Read events with ids above this one. */
  get after(): number {
    return this.floor;
  }

  /** Records `id` and says whether it is new (not handed on before). */
  take(id: number): boolean {
    if (id <= this.floor || this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }

  /** Moves the floor over ids seen in a row, and over a gap that stayed open past the grace period. */
  settle(now: number): void {
    for (;;) {
      while (this.seen.delete(this.floor + 1)) this.floor++;
      if (this.seen.size === 0) {
        this.gapSince = null;
        return;
      }
      this.gapSince ??= now;
      if (now - this.gapSince < this.graceMs) return;
      this.floor = Math.min(...this.seen) - 1;
      this.gapSince = null;
    }
  }
}
