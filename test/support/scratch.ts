import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processRuns } from '../../src/util/process-runs';

/**
 * Where a test run keeps its temporary files: in memory when the machine has room for them.
 *
 * The tests make and delete files by the hundred thousand (databases, git clones, agents'
 * folders). On a disk whose ext4 has no journal, as on the project's CI machine, making a file
 * costs in proportion to the files deleted in the last few minutes (the inode allocator steps
 * over each one): about a seventh of a run's CPU went there (bench/README.md, "Test files in
 * memory"). A memory filesystem has no such cost on any machine. So the global setup makes the
 * run's scratch folder in /dev/shm when that is a memory filesystem with room to spare where
 * programs may run, and points TMPDIR at it for the workers Jest starts next; without one, or when
 * TMPDIR is set already, the run keeps the system's temp folder.
 *
 * A suite whose agents cannot see /dev/shm (the real Claude Code CLI's sandbox mounts a /dev of
 * its own, hiding a workspace there) starts its file with a `// @scratch-on-disk: <why>` line:
 * `scratch-environment.ts` gives it the disk temp folder instead.
 */

/** The run's memory folder, or unset when the run keeps the system's temp folder. */
export const MEMORY_SCRATCH_VARIABLE = 'AQ_TEST_MEMORY_TMPDIR';
/** The temp folder the run started with, for suites marked `@scratch-on-disk`. */
export const DISK_SCRATCH_VARIABLE = 'AQ_TEST_DISK_TMPDIR';

const MEMORY_ROOT = '/dev/shm';
const PREFIX = 'aq-scratch-';
/** A run keeps a few hundred MB at once; asking for much more keeps a small /dev/shm (a container's 64 MB) out. */
const MIN_FREE_BYTES = 2 * 1024 ** 3;
/** tmpfs, from statfs(2)'s f_type. */
const TMPFS_MAGIC = 0x01021994;

/** Whether `folder` is on a memory filesystem with `minFree` bytes free, and the machine has as much memory free. */
export function hasRoom(folder: string, minFree = MIN_FREE_BYTES): boolean {
  try {
    const stats = statfsSync(folder);
    return stats.type === TMPFS_MAGIC && stats.bavail * stats.bsize >= minFree && os.freemem() >= minFree;
  } catch {
    return false;
  }
}

/**
 * Removes the memory folders of earlier runs that died before their teardown (a folder is named
 * after the process that made it): each would hold its memory until the machine restarts.
 */
export function removeAbandoned(root = MEMORY_ROOT): void {
  for (const name of readdirSync(root)) {
    const pid = name.startsWith(PREFIX) ? Number.parseInt(name.slice(PREFIX.length), 10) : Number.NaN;
    if (pid > 0 && !processRuns(pid)) rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/** The marker of a suite that keeps its temporary files on disk. */
const ON_DISK = /^\/\/ @scratch-on-disk: \S/m;

/** The TMPDIR for a suite of this source, in a worker of this environment; undefined: leave it as it is. */
export function tmpdirFor(source: string, env: NodeJS.ProcessEnv): string | undefined {
  const memory = env[MEMORY_SCRATCH_VARIABLE];
  if (!memory) return undefined;
  return ON_DISK.test(source) ? env[DISK_SCRATCH_VARIABLE] : memory;
}

/**
 * Whether a program written in `folder` runs: the tests run scripts and copied binaries from
 * their temp folders, and some machines mount /dev/shm `noexec`.
 */
export function runsPrograms(folder: string): boolean {
  const probe = path.join(folder, 'probe.sh');
  try {
    writeFileSync(probe, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    return spawnSync(probe, { stdio: 'ignore' }).status === 0;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

const removeAtExit = () => {
  const dir = process.env[MEMORY_SCRATCH_VARIABLE];
  if (dir) rmSync(dir, { recursive: true, force: true });
};

/** Called once per run by the global setup, before anything is made in the temp folder. */
export async function chooseScratch(): Promise<void> {
  if (process.env.TMPDIR || process.env[MEMORY_SCRATCH_VARIABLE] || !existsSync(MEMORY_ROOT) || !hasRoom(MEMORY_ROOT)) return;
  removeAbandoned();
  const disk = os.tmpdir();
  const dir = await mkdtemp(path.join(MEMORY_ROOT, `${PREFIX}${process.pid}-`));
  if (!runsPrograms(dir)) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  // As /tmp is to every user: the PostgreSQL server runs as its own user under it.
  await chmod(dir, 0o1777);
  process.env[DISK_SCRATCH_VARIABLE] = disk;
  process.env[MEMORY_SCRATCH_VARIABLE] = dir;
  process.env.TMPDIR = dir;
  process.once('exit', removeAtExit);
}

/** Called by the global teardown, after everything else there. */
export async function removeScratch(): Promise<void> {
  const dir = process.env[MEMORY_SCRATCH_VARIABLE];
  if (!dir) return;
  // The run chose memory only when TMPDIR was unset.
  delete process.env.TMPDIR;
  delete process.env[MEMORY_SCRATCH_VARIABLE];
  delete process.env[DISK_SCRATCH_VARIABLE];
  process.removeListener('exit', removeAtExit);
  await rm(dir, { recursive: true, force: true });
}
