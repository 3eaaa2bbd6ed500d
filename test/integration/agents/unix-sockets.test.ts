import { mkdir, writeFile } from 'node:fs/promises';
import type net from 'node:net';
import path from 'node:path';
import { runConfinedCheck } from '../../../src/agents/confined-check';
import { sandboxStatus } from '../../../src/agents/confinement';
import { unixSocketFilter } from '../../../src/agents/unix-socket-filter';
import { answeringServer, unixService } from '../../support/answering-server';
import { makeTempDirOutsideTmp } from '../../support/tmp';

const SECRET = 'a-host-service-answer-must-not-reach';

/** A service of the machine on a Unix socket, and one on loopback TCP; both answer and hang up. */
async function services(dir: string) {
  const socket = path.join(dir, 'service.sock');
  const unix = await unixService(socket, SECRET);
  const tcp = await answeringServer('tcp answered', (server, ready) => server.listen(0, '127.0.0.1', ready));
  const port = (tcp.server.address() as net.AddressInfo).port;
  const close = () => Promise.all([unix.close(), tcp.close()]);
  return { socket, port, close };
}

describe('Unix sockets under the whole-process sandbox (bubblewrap with the filter)', () => {
  it('a landing check cannot reach a host service on a socket file it sees; TCP and socket pairs still work', async () => {
    // Outside /tmp: the check's /tmp is an empty one of its own.
    const tmp = await makeTempDirOutsideTmp('aq-unix-');
    const outside = path.join(tmp.dir, 'outside');
    const workspace = path.join(tmp.dir, 'workspace');
    await mkdir(outside);
    await mkdir(workspace);
    const { socket, port, close } = await services(outside);
    try {
      // Node's child processes talk over a socket pair: a test runner starting workers needs them.
      await writeFile(
        path.join(workspace, 'probe.cjs'),
        [
          `require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write('tcp: ' + d));`,
          `console.log('pair: ' + require('child_process').execFileSync(process.execPath, ['-e', 'console.log(7 * 6)']).toString().trim());`,
        ].join('\n'),
      );
      const run = await runConfinedCheck(`ls ${outside}; socat -u UNIX-CONNECT:${socket} STDOUT; ${process.execPath} probe.cjs`, {
        cwd: workspace,
        timeoutMs: 60_000,
        maxOutput: 100_000,
        confinement: { allowUnsandboxed: false, hiddenPaths: [] },
      });
      expect(run.stdout).toContain('service.sock');
      expect(run.stderr).toMatch(/socat\[\d+\] E .*: Operation not permitted/);
      expect(run.stdout + run.stderr).not.toContain(SECRET);
      expect(run.stdout).toContain('tcp: tcp answered');
      expect(run.stdout).toContain('pair: 42');
      expect(run.exitCode).toBe(0);
    } finally {
      await close();
      await tmp.cleanup();
    }
  });

  it('is a program for the machines the app runs on, and none for an architecture it does not know', () => {
    for (const arch of ['x64', 'arm64']) {
      const program = unixSocketFilter(arch);
      // Whole instructions of eight bytes, ending with the allow, refuse and kill answers.
      expect(program && program.length % 8).toBe(0);
      expect(program?.readUInt32LE(program.length - 4)).toBe(0x80000000);
      expect(program?.readUInt32LE(program.length - 12)).toBe(0x00050001);
    }
    expect(unixSocketFilter('ia32')).toBeNull();
  });

  it('get_status says whether the filter applies on this machine: not on an architecture without one', () => {
    expect(sandboxStatus(false, 'x64').unix_sockets_refused).toBe(true);
    expect(sandboxStatus(false, 'ppc64')).toMatchObject({ available: true, unix_sockets_refused: false });
  });
});
