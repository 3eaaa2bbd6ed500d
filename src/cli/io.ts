/** A line of standard input longer than the CLI accepts: only its size is kept, never its text. */
export interface OversizedLine {
  oversized: true;
  bytes: number;
}

/** Where the CLI writes and reads; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Lines of standard input, for `aq exec -`. */
  readLines(): AsyncIterable<string | OversizedLine>;
}

/** The longest input line (and JSON_ARGS) the CLI reads; a command's input is never this large. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines without ever holding more than MAX_LINE_BYTES of one line:
 * the rest of a longer line is skipped and the line is reported by size. Splitting on the byte
 * 0x0a is safe for UTF-8, where it never occurs inside a multi-byte character.
 */
export async function* splitLines(
  input: AsyncIterable<Buffer | string>,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<string | OversizedLine> {
  let parts: Buffer[] = [];
  let kept = 0;
  let total = 0;
  const finish = (): string | OversizedLine => {
    const line: string | OversizedLine =
      total > maxBytes ? { oversized: true, bytes: total } : Buffer.concat(parts, kept).toString('utf8').replace(/\r$/, '');
    parts = [];
    kept = 0;
    total = 0;
    return line;
  };
  const take = (piece: Buffer) => {
    total += piece.length;
    if (total <= maxBytes) {
      parts.push(piece);
      kept += piece.length;
    } else if (parts.length > 0) {
      parts = [];
      kept = 0;
    }
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE, start); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      take(bytes.subarray(start, end));
      yield finish();
      start = end + 1;
    }
    if (start < bytes.length) take(Buffer.from(bytes.subarray(start)));
  }
  if (total > 0) yield finish();
}

/** What the CLI writes for `text`: a line, ended by one newline. */
export const asLine = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

/** A CliIo that keeps what the CLI writes, as the process would print it, and reads `input` as its standard input. */
export function capturingIo(input: AsyncIterable<string | OversizedLine> = (async function* () {})()): {
  io: CliIo;
  stdout(): string;
  stderr(): string;
} {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += asLine(text);
    },
    stderr: (text) => {
      stderr += asLine(text);
    },
    readLines: () => input,
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(asLine(text)),
  stderr: (text) => process.stderr.write(asLine(text)),
  readLines: () => splitLines(process.stdin),
};

/** Thrown by subcommands to end with a message and an exit code instead of a stack. */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}
