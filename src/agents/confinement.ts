import { accessSync, constants, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { HookCallback, HookJSONOutput, Options } from '@anthropic-ai/claude-agent-sdk';
import type { AppConfig } from '../config';
import { isInsideGitFolder } from '../git/git-control-files';
import { APP_SOCKET_NAME, agentTempDir, gitCredentialsDir, logsDir } from '../util/app-home-files';
import { settleAll } from '../util/settle-all';
import { isWithin } from '../util/path-within';
import { hasUnixSocketFilter } from './unix-socket-filter';

/** What a project allows its agents beyond their own workspace. */
export interface ConfinementPolicy {
  /** Folders agents may also read and write (besides the workspace). */
  extraDirs?: string[];
  /** Hosts sandboxed shell commands may reach (wildcards such as *.example.com). */
  allowedDomains?: string[];
  /** Run shell commands without the sandbox when bubblewrap or socat is missing. */
  allowUnsandboxed?: boolean;
  /**
   * The folder of every project's workspaces (AQ_WORKSPACE_DIR): closed to an agent but for its
   * own workspace and extra folders in it, so it reads no other task's or project's work.
   */
  workspacesRoot?: string;
}

/** Package registries and git forges: what builds and `git push` usually need. */
export const DEFAULT_ALLOWED_DOMAINS = [
  'registry.npmjs.org',
  'pypi.org',
  'files.pythonhosted.org',
  'github.com',
  '*.github.com',
  '*.githubusercontent.com',
  'gitlab.com',
];

/** Programs Claude Code's sandbox needs on Linux (Debian packages bubblewrap and socat). */
export const SANDBOX_PROGRAMS = ['bwrap', 'socat'];

/**
 * Secrets in a home folder that sandboxed commands must not read: credentials of the machine's
 * tools, and the logins of the agent CLIs (a whole ACP agent keeps its own: see bubblewrapArgs).
 */
export const HOME_SECRETS = [
  '.claude/.credentials.json',
  '.claude.json',
  '.codex/auth.json',
  '.gemini/oauth_creds.json',
  '.config/github-copilot',
  '.local/share/opencode/auth.json',
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.config/gh',
  '.config/glab-cli',
  '.config/gcloud',
  '.docker',
  '.kube',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.config/hub',
];

/**
 * The app's own files, hidden from everything it runs for an agent (the agent's sandboxed shell,
 * a whole ACP agent, a project's check command), since what an agent reads reaches its model: the
 * database, the `.env` it read, the agent profiles (their `env` may hold another vendor's
 * key), aq's log, the socket through which `aq` has the running app run commands, and the
 * credentials taken out of clone URLs.
 */
export function appPrivatePaths(config: AppConfig): string[] {
  const database = config.databasePath;
  return [
    database,
    `${database}-wal`,
    `${database}-shm`,
    ...config.dotEnvFiles,
    config.agents.profilesFile,
    logsDir(config.home),
    path.join(config.home, APP_SOCKET_NAME),
    gitCredentialsDir(config.home),
    agentTempDir(config.home),
  ];
}

/** Claude Code's login where CLAUDE_CONFIG_DIR moves it out of the home folder. */
export function claudeConfigSecrets(configDir: string | undefined): string[] {
  return configDir ? [path.join(configDir, '.credentials.json'), path.join(configDir, '.claude.json')] : [];
}

/** The sandbox programs missing from PATH (empty when the sandbox can run). */
export function missingSandboxPrograms(pathVariable = process.env.PATH ?? ''): string[] {
  const dirs = pathVariable.split(path.delimiter).filter(Boolean);
  return SANDBOX_PROGRAMS.filter(
    (program) =>
      !dirs.some((dir) => {
        const file = path.join(dir, program);
        // Most folders on PATH lack the program: asking stat first spares a thrown error for each.
        if (!statSync(file, { throwIfNoEntry: false })) return false;
        try {
          accessSync(file, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
  );
}

/**
 * The real path of `target`, following symlinks as far as the path exists: a file that is
 * about to be created is judged by the real folder it would land in.
 */
export async function realPathOf(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The path guard's one test, for every backend: where `target` really lies (symlinks followed),
 * relative to the real root it is in; null outside them all.
 */
async function whereInRoots(target: string, realRoots: string[]): Promise<string | null> {
  const real = await realPathOf(target);
  const root = realRoots.find((r) => isWithin(real, r));
  return root === undefined ? null : path.relative(root, real);
}

/**
 * Why an agent may not use `target` with a file tool (`writes`: one that changes files), or null:
 * outside the roots (symlinks followed), or a write into a repository's git folder, which holds
 * the settings and hooks of the git the app runs there outside any sandbox (git/git-control-files.ts).
 */
export async function fileToolRefusal(
  target: string,
  roots: string[],
  realRoots: string[],
  writes: boolean,
): Promise<FileToolRefusal | null> {
  const relative = await whereInRoots(target, realRoots);
  if (relative === null) return outsideRefusal(target, roots);
  if (writes && isInsideGitFolder(relative)) {
    return {
      reason: `${target} is in a repository's git folder, which holds git's settings and hooks: change what git keeps by running git (git add, git commit), not by writing its files.`,
      place: 'in a git folder',
    };
  }
  return null;
}

/** The refusal of a path outside the roots (or not a path at all). */
export function outsideRefusal(target: string, roots: string[]): FileToolRefusal {
  return {
    reason: `${target} is outside this task's workspace; agents may only read and write inside ${roots[0]}.`,
    place: 'outside the workspace',
  };
}

/** The file tools that change files: a run whose every call of these was refused changed nothing. */
export const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Tool input fields that name a file or folder. */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path'];

/** The part of a glob before its first wildcard: the folder a pattern can reach. */
function globBase(pattern: string): string {
  const segments = pattern.split('/');
  const fixed: string[] = [];
  for (const segment of segments) {
    if (/[*?[\]{}]/.test(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/') || '.';
}

/** The paths a tool call would touch, resolved against the workspace. */
export function pathsOfToolCall(tool: string, input: Record<string, unknown>, cwd: string): string[] {
  const found: string[] = [];
  for (const field of PATH_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim()) found.push(path.resolve(cwd, value));
  }
  if (tool === 'Glob' && typeof input.pattern === 'string') {
    const base = typeof input.path === 'string' ? path.resolve(cwd, input.path) : cwd;
    found.push(path.resolve(base, globBase(input.pattern)));
  }
  if (tool === 'Grep' && typeof input.glob === 'string') {
    const base = typeof input.path === 'string' ? path.resolve(cwd, input.path) : cwd;
    found.push(path.resolve(base, globBase(input.glob)));
  }
  return found;
}

export interface Refusal {
  tool: string;
  path: string;
  reason: string;
  /** Where the call tried to go, as progress lines and the run's summary say it. */
  place: RefusedPlace;
}

export type RefusedPlace = 'outside the workspace' | 'in a git folder';

/** Where refused calls tried to go, as one phrase: "outside the workspace or in a git folder". */
export function placesOf(refusals: Refusal[]): string {
  return [...new Set(refusals.map((r) => r.place))].join(' or ');
}

/** Why a run that changed nothing, because every write was refused, is a failure (every backend). */
export function everyWriteRefused(refused: Refusal[], cwd: string): string {
  const paths = [...new Set(refused.map((r) => r.path))].slice(0, 3).join(', ');
  return `Every file write of this run was refused because it was ${placesOf(refused)} (${paths}), so nothing was changed. The agent works in ${cwd}: send a follow-up naming that folder, or restart the task.`;
}

/** Why a file tool call is refused, for the agent, and where it tried to go. */
export interface FileToolRefusal {
  reason: string;
  place: RefusedPlace;
}

function deny(reason: string): HookJSONOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

/**
 * A PreToolUse hook that refuses any file tool call whose real path leaves the allowed roots or
 * writes into a git folder, and any shell command that asks to leave the sandbox. It sees every
 * call, including those `allowedTools` approves before the permission callback would be asked.
 */
export function pathGuard(
  roots: string[],
  onRefused: (refusal: Refusal) => void,
  onAllowed: (tool: string) => void = () => undefined,
): HookCallback {
  const realRoots = settleAll(roots.map(realPathOf));
  return async (input) => {
    if (input.hook_event_name !== 'PreToolUse') return {};
    const tool = input.tool_name;
    const toolInput = (input.tool_input ?? {}) as Record<string, unknown>;
    if (tool === 'Bash' && toolInput.dangerouslyDisableSandbox) {
      const reason = 'Shell commands always run in the sandbox here; run it without dangerouslyDisableSandbox.';
      onRefused({ tool, path: '', reason, place: 'outside the workspace' });
      return deny(reason);
    }
    const allowed = await realRoots;
    for (const candidate of pathsOfToolCall(tool, toolInput, input.cwd)) {
      const refused = await fileToolRefusal(candidate, roots, allowed, WRITE_TOOLS.has(tool));
      if (refused) {
        onRefused({ tool, path: candidate, ...refused });
        return deny(refused.reason);
      }
    }
    onAllowed(tool);
    return {};
  };
}

/**
 * The folders closed to an agent but for its own roots in them: the workspaces folder, unless it
 * holds the home folder (AQ_WORKSPACE_DIR set that wide would hide the shell's own settings and
 * tools' caches; the app's own files and the home's secrets stay hidden anyway).
 */
export function closedFolders(policy: ConfinementPolicy, home: string): string[] {
  const root = policy.workspacesRoot;
  return root && !isWithin(path.resolve(home), path.resolve(root)) ? [root] : [];
}

/**
 * Claude Code's shell sandbox: writes only in the workspace (and the run's own temporary folder,
 * `temp`, readable though hidden folders hold it), home secrets and other workspaces hidden, no
 * escape hatch.
 */
export function sandboxSettings(
  home: string,
  roots: string[],
  policy: ConfinementPolicy,
  hidden: string[] = [],
  temp?: string,
): NonNullable<Options['sandbox']> {
  const closed = closedFolders(policy, home);
  const readable = temp ? [...roots, temp] : roots;
  return {
    enabled: true,
    failIfUnavailable: true,
    autoAllowBashIfSandboxed: true,
    allowUnsandboxedCommands: false,
    network: { allowedDomains: policy.allowedDomains ?? DEFAULT_ALLOWED_DOMAINS, strictAllowlist: true },
    filesystem: {
      allowWrite: [...roots.slice(1), ...(temp ? [temp] : [])],
      denyRead: [...HOME_SECRETS.map((secret) => path.join(home, secret)), ...hidden, ...closed],
      ...((closed.length > 0 || temp) && { allowRead: readable }),
    },
  };
}

export interface SandboxStatus {
  /** Shell commands of agents run in Claude Code's sandbox. */
  available: boolean;
  missing: string[];
  /** Whether tasks run at all: always with the sandbox, without it only when the policy allows. */
  tasks_may_run: boolean;
  /**
   * Whether bubblewrap's confinement (a whole ACP agent, a landing check) refuses Unix sockets:
   * the filter exists for this machine's architecture (unix-socket-filter.ts).
   */
  unix_sockets_refused: boolean;
}

/** What get_status and the app's start-up say about agent confinement on this machine. */
export function sandboxStatus(allowUnsandboxed: boolean, arch: string = process.arch): SandboxStatus {
  const missing = missingSandboxPrograms();
  return {
    available: missing.length === 0,
    missing,
    tasks_may_run: missing.length === 0 || allowUnsandboxed,
    unix_sockets_refused: !missing.includes('bwrap') && hasUnixSocketFilter(arch),
  };
}
