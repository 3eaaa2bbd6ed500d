/**
 * The line of an agent process's error output that says why it ended. Programs that crash end
 * their output with lines that say nothing by themselves: Node prints the error, its stack, its
 * properties and then `Node.js v20.20.2`; Python its traceback; Rust `note: run with
 * RUST_BACKTRACE=1`. So the last line naming an error wins, and otherwise the last line.
 */
const NAMES_AN_ERROR = /\b(error|exception|panic(ked)?|fatal|traceback)\b/i;
/** A frame of a stack trace (`    at f (file:1:2)`, `  File "x.py", line 3`), which names a place, not a cause. */
const STACK_FRAME = /^\s+(at\s|File\s")/;

export function lastWordsOf(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (NAMES_AN_ERROR.test(lines[i]) && !STACK_FRAME.test(lines[i])) return lines[i];
  }
  return lines.at(-1);
}
