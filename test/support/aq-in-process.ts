import { Readable } from 'node:stream';
import { main } from '../../src/cli';
import { capturingIo, splitLines } from '../../src/cli/io';
import type { AqAnswer } from './aq-process';

/**
 * `aq` from its TypeScript sources, in this process, on AQ_HOME `home` with only PATH and
 * `options.env` besides, as runAq starts the real one: the reference the built forms of aq (the
 * bundle, the startup snapshots) are compared with. It writes what the process would, line by
 * line, and reads `options.stdin` as the process reads its standard input.
 */
export async function runAqInProcess(
  home: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<AqAnswer> {
  const { io, stdout, stderr } = capturingIo(splitLines(Readable.from([Buffer.from(options.stdin ?? '')])));
  const code = await main(args, io, { PATH: process.env.PATH, AQ_HOME: home, ...options.env });
  return { code, stdout: stdout(), stderr: stderr() };
}
