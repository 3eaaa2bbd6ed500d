/**
 * A test app's log (startTestApp's `log` option). A test takes the messages it expects, which
 * asserts them; whatever no test took is printed when the test ends, as the app would have
 * printed it, so an unexpected message still shows.
 */
export class AppLog {
  private readonly lines: string[] = [];
  readonly log = (message: string): void => {
    this.lines.push(message);
  };

  /** The messages that contain `text`, taken off the log; fails the test when none does. */
  take(text: string): string[] {
    const taken = this.lines.filter((line) => line.includes(text));
    if (taken.length === 0) throw new Error(`The app logged nothing with ${JSON.stringify(text)}; it logged ${JSON.stringify(this.lines)}`);
    this.lines.splice(0, this.lines.length, ...this.lines.filter((line) => !line.includes(text)));
    return taken;
  }

  /** Prints what no test took, and empties the log. */
  flush(): void {
    for (const line of this.lines.splice(0)) console.error(line);
  }
}
