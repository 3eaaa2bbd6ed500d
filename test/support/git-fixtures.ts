import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

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
