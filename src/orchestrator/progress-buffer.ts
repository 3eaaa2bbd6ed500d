import { shorten } from '../util/whole-characters';

/** Batches progress lines into at most one `task_progress` event per interval. */
export class ProgressBuffer {
  private lines: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (text: string) => Promise<unknown>,
  ) {}

  push(line: string): void {
    this.lines.push(line);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.intervalMs);
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.lines.length === 0) return;
    const lines = this.lines.splice(0);
    const shown = lines.slice(-15);
    const text = (lines.length > shown.length ? [`… ${lines.length - shown.length} earlier lines`, ...shown] : shown).join('\n');
    await this.send(shorten(text, 3000)).catch(() => undefined);
  }
}
