import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Test helpers over real git (execFile, local paths only, no network). Every repository made
 * here gets a local user.name/user.email, since CI runs as root with no git config at all.
 */

/** Runs git in `cwd` and returns stdout (trimmed). Test repos set their own identity. */
export async function gitOut(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  return stdout.trim();
}

async function identify(repo: string): Promise<void> {
  await gitOut(repo, 'config', 'user.name', 'Test User');
  await gitOut(repo, 'config', 'user.email', 'test@example.com');
}

export async function commitFile(repo: string, file: string, content: string, message = `edit ${file}`): Promise<string> {
  await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
  await writeFile(path.join(repo, file), content);
  await gitOut(repo, 'add', '-A');
  await gitOut(repo, 'commit', '-m', message);
  return gitOut(repo, 'rev-parse', 'HEAD');
}

/** A bare `origin` with one commit on `defaultBranch` holding `files`. */
export async function createOriginRepo(
  dir: string,
  options: { defaultBranch?: string; files?: Record<string, string> } = {},
): Promise<string> {
  const branch = options.defaultBranch ?? 'main';
  const origin = path.join(dir, 'origin.git');
  await gitOut(dir, 'init', '--bare', '-b', branch, origin);
  const seed = path.join(dir, 'seed');
  await gitOut(dir, 'clone', origin, seed);
  await identify(seed);
  await gitOut(seed, 'checkout', '-B', branch);
  for (const [file, content] of Object.entries(options.files ?? { 'README.md': '# Project\n' })) {
    await mkdir(path.dirname(path.join(seed, file)), { recursive: true });
    await writeFile(path.join(seed, file), content);
  }
  await gitOut(seed, 'add', '-A');
  await gitOut(seed, 'commit', '-m', 'Initial commit');
  await gitOut(seed, 'push', '-u', 'origin', branch);
  return origin;
}

/** A clone of `origin` at `dest` with a local identity, like a workspace. */
export async function cloneWorkspace(origin: string, dest: string): Promise<string> {
  await gitOut(path.dirname(dest), 'clone', origin, dest);
  await identify(dest);
  return dest;
}

/** Pushes a branch with one commit changing `file`, made in a scratch clone. */
export async function pushBranch(origin: string, scratch: string, branch: string, file: string, content: string): Promise<void> {
  const clone = await cloneWorkspace(origin, scratch);
  await gitOut(clone, 'checkout', '-b', branch);
  await commitFile(clone, file, content, `${branch}: ${file}`);
  await gitOut(clone, 'push', '-u', 'origin', branch);
}

/** What a checkout looks like: branch, HEAD, short status and every tracked file's content. */
export interface RepoSnapshot {
  branch: string;
  head: string;
  status: string;
  files: Record<string, string>;
}

export async function snapshot(repo: string): Promise<RepoSnapshot> {
  const files: Record<string, string> = {};
  for (const file of (await gitOut(repo, 'ls-files')).split('\n').filter(Boolean)) {
    files[file] = await readFile(path.join(repo, file), 'utf8').catch(() => '<missing>');
  }
  return {
    branch: await gitOut(repo, 'rev-parse', '--abbrev-ref', 'HEAD'),
    head: await gitOut(repo, 'rev-parse', 'HEAD'),
    status: await gitOut(repo, 'status', '--short', '--untracked-files=all'),
    files,
  };
}

/** An environment in which git sees no global or system config (no identity, like CI as root). */
export function bareGitEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
}
