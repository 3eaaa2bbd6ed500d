import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { gitControlPaths } from '../git/git-control-files';
import { HOME_SECRETS } from './confinement';
import { isWithin } from '../util/path-within';
import { unixSocketFilter } from './unix-socket-filter';

/** Where a whole agent process may write, and what it must not read. */
export interface ProcessSandbox {
  home: string;
  /** The workspace first, then the project's extra folders, the agent's own state, its temp folder. */
  writable: string[];
  /**
   * Of those, the agent's own state (its profile's `writable`): a home secret in one of these
   * folders below the home folder (its login, such as ~/.codex) stays readable; the home folder
   * itself made writable hides them all still.
   */
  own: string[];
  /** Files and folders hidden from the agent (the app's own: appPrivatePaths). */
  hidden: string[];
  /** Folders hidden but for the writable folders inside them (every project's workspaces). */
  closed?: string[];
  /** An empty /tmp of its own, where only the writable folders under /tmp (an agent's TMPDIR) come back. */
  privateTmp?: boolean;
  /** The descriptor bubblewrap reads a seccomp filter from (bubblewrapCommand gives it the Unix-socket one). */
  seccompFd?: number;
}

/** bubblewrap's arguments, and the bytes it reads on its descriptor 3 as it starts (null: none). */
export interface BubblewrapCommand {
  args: string[];
  descriptor3: Buffer | null;
}

/** bubblewrap arguments masking each existing path: an empty folder over a folder, /dev/null over a file. */
export function maskArgs(paths: string[]): string[] {
  return paths.filter((p) => existsSync(p)).flatMap((p) => (statSync(p).isDirectory() ? ['--tmpfs', p] : ['--ro-bind', '/dev/null', p]));
}

/**
 * bubblewrap arguments emptying each closed folder (before the writable folders are bound, so
 * those inside it come back); one that lies inside a writable folder stays as it is.
 */
export function closedArgs(closed: string[], writable: string[]): string[] {
  return closed.filter((dir) => existsSync(dir) && !writable.some((root) => isWithin(dir, root))).flatMap((dir) => ['--tmpfs', dir]);
}

/**
 * bubblewrap arguments holding read-only the git settings and hooks of each repository among
 * `writable` folders (after their binds): the app runs git there outside any sandbox.
 */
export function gitControlArgs(writable: string[]): string[] {
  return writable.flatMap(gitControlPaths).flatMap((p) => ['--ro-bind', p, p]);
}

/**
 * The bubblewrap command line that runs `command` confined: the machine read-only, writes only in
 * the writable folders (but not in their git settings and hooks), other workspaces, home secrets
 * and the app's own files replaced by empty ones, its own process and IPC namespaces, and with a
 * `seccompFd` no Unix sockets (unix-socket-filter.ts). The network stays shared: the agent must
 * reach its model's API (shell commands it runs go through the same confinement).
 */
export function bubblewrapArgs(sandbox: ProcessSandbox, cwd: string, command: string, args: string[]): string[] {
  const binds = sandbox.writable.flatMap((dir) => ['--bind', dir, dir]);
  const ownLogins = sandbox.own.filter((dir) => dir !== sandbox.home && isWithin(dir, sandbox.home));
  const homeSecrets = HOME_SECRETS.map((secret) => path.join(sandbox.home, secret)).filter(
    (secret) => !ownLogins.some((dir) => isWithin(secret, dir)),
  );
  const hidden = maskArgs([...homeSecrets, ...sandbox.hidden]);
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...(sandbox.privateTmp ? ['--tmpfs', '/tmp'] : []),
    ...closedArgs(sandbox.closed ?? [], sandbox.writable),
    ...binds,
    ...gitControlArgs(sandbox.writable),
    ...hidden,
    ...(sandbox.seccompFd === undefined ? [] : ['--seccomp', String(sandbox.seccompFd)]),
    '--unshare-pid',
    '--unshare-ipc',
    '--die-with-parent',
    '--new-session',
    '--chdir',
    cwd,
    '--',
    command,
    ...args,
  ];
}

/**
 * bubblewrapArgs with the Unix-socket filter (unix-socket-filter.ts) for this machine's
 * architecture, which bubblewrap reads on descriptor 3: spawn it with descriptor3Pipe and feed
 * it with writeDescriptor3 (src/util/descriptor3.ts), or through runShell's `descriptor3`.
 */
export function bubblewrapCommand(sandbox: ProcessSandbox, cwd: string, command: string, args: string[]): BubblewrapCommand {
  const filter = unixSocketFilter();
  return { args: bubblewrapArgs({ ...sandbox, ...(filter && { seccompFd: 3 }) }, cwd, command, args), descriptor3: filter };
}
