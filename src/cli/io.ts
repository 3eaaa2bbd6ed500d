import readline from 'node:readline';

/** Where the CLI writes and reads; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Lines of standard input, for `aq exec -`. */
  readLines(): AsyncIterable<string>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  stderr: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  readLines: () => readline.createInterface({ input: process.stdin, crlfDelay: Infinity }),
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
