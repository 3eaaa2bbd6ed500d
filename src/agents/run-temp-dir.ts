import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processRuns } from '../util/process-runs';

/**
 * Each agent run's own temporary folder, in the app's `agent-tmp` (agentTempDir). A folder's name
 * says which process made it (`<prefix><host>-<pid>-…`), so the folders a crashed process could
 * not remove are told from those of runs still going, in this process or in another worker
 * sharing the app's home.
 */

/** What each backend's run folders are called before their owner: Claude Code's and an ACP agent's. */
const RUN_DIR_PREFIXES = ['claude-', 'aq-acp-'] as const;
export type RunDirPrefix = (typeof RUN_DIR_PREFIXES)[number];

/** The start of the names of the folders processes on this machine made with `prefix`; the pid follows. */
function machineTag(prefix: RunDirPrefix): string {
  return `${prefix}${os.hostname()}-`;
}

/** The process on this machine that made the run folder called `name`, or null for another machine's (or no run's). */
function ownerOf(name: string): number | null {
  for (const prefix of RUN_DIR_PREFIXES) {
    const ours = machineTag(prefix);
    if (!name.startsWith(ours)) continue;
    const pid = Number(name.slice(ours.length).split('-', 1)[0]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  }
  return null;
}

/** Removes this machine's run folders in `tempRoot` whose process has ended (a crash, a kill): what their runs could not. */
async function removeLeftovers(tempRoot: string): Promise<void> {
  for (const name of await readdir(tempRoot)) {
    const pid = ownerOf(name);
    if (pid === null || pid === process.pid || processRuns(pid)) continue;
    await rm(path.join(tempRoot, name), { recursive: true, force: true });
  }
}

/**
 * A run's own temporary folder in `tempRoot`, the root made readable by this user alone if it is
 * not there yet; leftovers of ended processes go first. The caller removes the folder when the run ends.
 */
export async function makeRunTempDir(tempRoot: string, prefix: RunDirPrefix): Promise<string> {
  await mkdir(tempRoot, { recursive: true, mode: 0o700 });
  await removeLeftovers(tempRoot);
  return mkdtemp(path.join(tempRoot, `${machineTag(prefix)}${process.pid}-`));
}
