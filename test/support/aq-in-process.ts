import { Readable } from 'node:stream';
import { main } from '../../src/cli';
import { capturingIo, splitLines } from '../../src/cli/io';

export interface AqAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `aq` from its TypeScript sources, in this process: the reference the built forms of aq (the
 * bundle, the startup snapshots) are compared with. It writes what the process would, line by
 * line, and reads `stdin` as the process reads its standard input; the environment is `env` alone.
 */
export async function runAqInProcess(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<AqAnswer> {
  const { io, stdout, stderr } = capturingIo(splitLines(Readable.from([Buffer.from(stdin)])));
  const code = await main(args, io, { ...env });
  return { code, stdout: stdout(), stderr: stderr() };
}
