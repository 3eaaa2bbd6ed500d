import os from 'node:os';
import path from 'node:path';
import { runShell, type ShellRun } from '../util/run-shell';
import { closedFolders, missingSandboxPrograms } from './confinement';
import { bubblewrapCommand } from './process-sandbox';

export interface CheckConfinement {
  /** Run without bubblewrap when it is missing (the agents' own AQ_ALLOW_UNSANDBOXED). */
  allowUnsandboxed: boolean;
  /** Files and folders the command must not read (the app's own: appPrivatePaths). */
  hiddenPaths: string[];
  /** The folder of every project's workspaces: hidden but for this workspace. */
  workspacesRoot?: string;
}

/**
 * Runs a project's check command in a task's workspace confined like the agent's shell: the
 * environment without the app's secrets, and under bubblewrap a read-only system with only the
 * workspace (and a private /tmp) writable but not its git settings and hooks, other workspaces,
 * the home folder's credentials and the queue's own files hidden, its own process namespace
 * (the app's processes, and so their environment, out of sight), and no Unix sockets. Refuses,
 * in a sentence, when bubblewrap is missing and the app may not run commands without it.
 */
export async function runConfinedCheck(
  command: string,
  options: { cwd: string; timeoutMs: number; maxOutput: number; confinement: CheckConfinement },
): Promise<ShellRun> {
  const shell = { cwd: options.cwd, timeoutMs: options.timeoutMs, maxStdout: options.maxOutput, maxStderr: options.maxOutput };
  const missing = missingSandboxPrograms().filter((p) => p === 'bwrap');
  if (missing.length > 0) {
    if (options.confinement.allowUnsandboxed) return runShell(command, shell);
    return {
      exitCode: 127,
      stdout: '',
      stderr:
        'The check command was not run: bubblewrap (bwrap) is not installed on this machine, and commands run only inside it unless AQ_ALLOW_UNSANDBOXED is set.',
      timedOut: false,
    };
  }
  const home = os.homedir();
  const workspace = path.resolve(options.cwd);
  // The agents' own sandbox line, so the check gets what they get: its own process namespace
  // above all, where the app's processes (and their environment) are out of sight and reach.
  const { args, descriptor3 } = bubblewrapCommand(
    {
      home,
      writable: [workspace],
      own: [],
      hidden: options.confinement.hiddenPaths,
      closed: closedFolders(options.confinement, home),
      privateTmp: true,
    },
    workspace,
    '/bin/sh',
    ['-c', command],
  );
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return runShell(`exec bwrap ${quoted}`, { ...shell, descriptor3 });
}
